package dev.ration.cli;

import static dev.ration.cli.CliRuns.cli;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How `ration cluster add|remove|...` and `ration snapshot save` find the leader among --admin-servers, against real HTTP
 * servers on loopback that answer as a node's admin endpoint does: a non-leader that knows the
 * leader points at it (421 + Ration-Leader-Admin); one that does not (an election under way)
 * answers 421 alone, and the command asks again until --wait runs out.
 */
class AdminLeaderSearchTest {
  private static final String DONE = "result: ok\nmessage: n4 removed\n"
      + "voters: n1=127.0.0.1:1/127.0.0.1:2/127.0.0.1:3\nlisteners: \n";
  private static final String NO_LEADER = "result: NOT_LEADER\nmessage: not the leader (leader: unknown)\n";
  private final List<HttpServer> servers = new ArrayList<>();

  @AfterEach
  void stop() {
    servers.forEach(s -> s.stop(0));
  }

  @Test
  void anElectionIsWaitedOutWithinWait() throws IOException {
    AtomicInteger asked = new AtomicInteger();
    String follower = node(n -> reply(421, NO_LEADER, null));
    // Knows no leader for its first three answers, then has won the election.
    String candidate = node(n -> asked.incrementAndGet() <= 3 ? reply(421, NO_LEADER, null) : reply(200, DONE, null));

    String[] r = cli("cluster", "remove", "n4", "--insecure", "--wait", "30s",
        "--admin-servers", follower + "," + candidate);

    assertEquals("0", r[0], String.join("\n", r));
    assertTrue(r[1].contains("n4 removed"), r[1]);
    assertEquals(4, asked.get(), "the candidate is asked until it leads, and no more");
    assertEquals(1, r[2].split("waiting for a leader", -1).length - 1, "said once: " + r[2]);
  }

  @Test
  void noLeaderWithinWaitIsADefiniteFailure() throws IOException {
    AtomicInteger asked = new AtomicInteger();
    String a = node(n -> {
      asked.incrementAndGet();
      return reply(421, NO_LEADER, null);
    });
    String b = node(n -> reply(421, NO_LEADER, null));
    long start = System.nanoTime();

    String[] r = cli("cluster", "remove", "n4", "--insecure", "--wait", "1s", "--admin-servers", a + "," + b);

    long tookMs = (System.nanoTime() - start) / 1_000_000;
    assertEquals("2", r[0], String.join("\n", r));
    assertTrue(r[2].contains("NOT_LEADER") && r[2].contains("leader: unknown"), r[2]);
    assertTrue(asked.get() >= 2, "asked again while no leader was known: " + asked.get());
    assertTrue(tookMs >= 700, "gave up after " + tookMs + " ms, before --wait 1s ran out");
  }

  @Test
  void aPointerToTheLeaderIsFollowedAndTheRemainingWaitSent() throws IOException {
    List<String> queries = new ArrayList<>();
    String leader = node(ex -> {
      queries.add(ex.getRequestURI().getRawQuery());
      return reply(200, DONE, null);
    });
    String follower = node(ex -> reply(421, "result: NOT_LEADER\nmessage: not the leader (leader: n1)\n", leader));

    String[] r = cli("cluster", "remove", "n4", "--insecure", "--wait", "2m", "--admin-servers", follower);

    assertEquals("0", r[0], String.join("\n", r));
    assertEquals(1, queries.size());
    assertTrue(queries.get(0).startsWith("id=n4&wait="), queries.get(0));
    long waitMs = Long.parseLong(queries.get(0).replaceAll(".*wait=(\\d+)ms.*", "$1"));
    assertTrue(waitMs > 100_000 && waitMs <= 120_000, "wait sent: " + waitMs + " ms");
  }

  @Test
  void unreachableNodesAreIndeterminate() throws IOException {
    HttpServer gone = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    int port = gone.getAddress().getPort();
    gone.stop(0);

    String[] r = cli("cluster", "remove", "n4", "--insecure", "--wait", "5s", "--timeout", "1s",
        "--admin-servers", "127.0.0.1:" + port);

    assertEquals("3", r[0], String.join("\n", r));
    assertTrue(r[2].contains("no admin endpoint answered"), r[2]);
  }

  @Test
  void snapshotSaveAsksAgainWhileNoLeaderIsKnown(@TempDir Path dir) throws IOException {
    AtomicInteger asked = new AtomicInteger();
    // Two answers without a leader, then a leader whose snapshot fails: the save reports that.
    String node = node(ex -> asked.incrementAndGet() <= 2
        ? reply(421, NO_LEADER, null) : reply(503, "checkpoint failed: disk full\n", null));

    String[] r = cli("snapshot", "save", dir.resolve("b.tar").toString(), "--insecure",
        "--admin-servers", node);

    assertEquals("3", r[0], String.join("\n", r));
    assertTrue(r[2].contains("no backup taken") && r[2].contains("HTTP 503: checkpoint failed"), r[2]);
    assertEquals(3, asked.get());
    assertTrue(r[2].contains("waiting for a leader: no node knows one"), r[2]);
    assertTrue(Files.notExists(dir.resolve("b.tar")) && Files.notExists(dir.resolve("b.tar.part")));
  }

  // ---------------------------------------------------------------- helpers

  private record Reply(int status, String body, String leader) {}

  private static Reply reply(int status, String body, String leader) {
    return new Reply(status, body, leader);
  }

  /**
   * A loopback HTTP server answering every request (POST /membership/..., GET /snapshot) with
   * {@code answer}, but GET /status, which it answers as n1 leading (what a remove asks the
   * remaining members before it says ok); returns host:port.
   */
  private String node(Function<HttpExchange, Reply> answer) throws IOException {
    HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    s.createContext("/", ex -> {
      Reply r = ex.getRequestURI().getPath().equals("/status")
          ? reply(200, "{\"nodeId\":\"n1\",\"role\":\"LEADER\"}", null)
          : answer.apply(ex);
      if (r.leader() != null) {
        ex.getResponseHeaders().set("Ration-Leader-Admin", r.leader());
      }
      byte[] body = r.body().getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(r.status(), body.length);
      ex.getResponseBody().write(body);
      ex.close();
    });
    s.start();
    servers.add(s);
    return "127.0.0.1:" + s.getAddress().getPort();
  }
}
