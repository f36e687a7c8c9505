package dev.ration.cli;

import static dev.ration.cli.CliRuns.cli;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.LimitSpec;
import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.RationException;
import dev.ration.client.SetLimitResult;
import dev.ration.testkit.FreePorts;
import dev.ration.testkit.Waits;
import dev.ration.wire.ErrorCode;
import dev.ration.wire.Outcome;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A leader removed by `ration cluster remove` and left running (docs/OPERATIONS.md, "Removing a
 * node"), on three real nodes started as `ration server` would start them: Ratis shuts the
 * removed leader's Raft division down, and the node must still answer at once. Its /status
 * (within a second) says it was removed, /ready is 503 saying so, and a client request sent to
 * its client port is answered within a second with a definite NOT_LEADER, not left to its
 * deadline. The remaining two elect a leader and take writes.
 */
class RemovedLeaderTest {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final Duration PROMPT = Duration.ofSeconds(1);
  private final Map<String, NodeLauncher.RunningNode> nodes = new ConcurrentHashMap<>();
  private final List<Thread> servers = Collections.synchronizedList(new ArrayList<>());
  private final String group = UUID.randomUUID().toString();
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(PROMPT).build();
  @TempDir Path dir;

  record Ports(int raft, int client, int admin) {
    String peer(String id) {
      return "    - { id: " + id + ", raft: 127.0.0.1:" + raft + ", client: 127.0.0.1:" + client
          + ", admin: 127.0.0.1:" + admin + " }\n";
    }
  }

  @AfterEach
  void stopAll() throws InterruptedException {
    nodes.values().forEach(NodeLauncher.RunningNode::shutdown);
    for (Thread t : servers) {
      t.join(30_000);
    }
  }

  @Test
  void removedLeaderKeepsAnsweringAndSaysItWasRemoved() throws Exception {
    Map<String, Ports> ports = new TreeMap<>();
    for (String id : List.of("n1", "n2", "n3")) {
      ports.put(id, new Ports(FreePorts.next(), FreePorts.next(), FreePorts.next()));
    }
    String peers = ports.entrySet().stream().map(e -> e.getValue().peer(e.getKey()))
        .reduce("", String::concat);
    for (String id : ports.keySet()) {
      Files.writeString(dir.resolve(id + ".yaml"), "node:\n  id: " + id + "\n  data-dir: data/"
          + id + "\ncluster:\n  group-id: " + group + "\n  peers:\n" + peers
          + "raft:\n  election-timeout-min: 1s\n  election-timeout-max: 2s\n"
          + "  request-timeout: 5s\n");
      serve(id);
    }
    String admins = String.join(",", ports.values().stream()
        .map(p -> "127.0.0.1:" + p.admin()).toList());
    String leader = Waits.upTo(WAIT).every(Duration.ofMillis(200)).until("a ready leader",
        () -> readyLeader(ports, List.copyOf(ports.keySet())), id -> !id.isEmpty());
    Ports removed = ports.get(leader);
    List<String> rest = new ArrayList<>(ports.keySet());
    rest.remove(leader);

    String[] remove = Waits.upTo(WAIT).every(Duration.ofMillis(500)).until("the removal made",
        () -> cli("cluster", "remove", leader, "--admin-servers", admins, "--wait", "30s"),
        // Right after the start a follower may not have caught up yet, and the leader refuses a
        // removal that would leave fewer up-to-date voters than a majority: ask again.
        r -> !r[2].contains("NOT_LEADER") && !r[2].contains("IN_PROGRESS")
            && !r[2].contains("would lose the majority"));
    assertEquals("0", remove[0], String.join("\n", remove));
    assertTrue(remove[1].contains(leader + " removed"), remove[1]);

    // Ratis closes the removed leader's division shortly after the change commits; from then on
    // (and before) every probe must be answered within a second.
    String status = Waits.upTo(WAIT).every(Duration.ofMillis(200)).until(
        leader + "'s /status saying it was removed",
        () -> promptGet(removed.admin(), "/status").body(), s -> s.contains("\"role\":\"REMOVED\""));
    assertFalse(status.contains("\"leaderId\":\"" + leader + "\""), status);
    // Once Ratis has closed the division: a stale view must not bring the node back.
    Thread.sleep(3_000);
    status = promptGet(removed.admin(), "/status").body();
    assertTrue(status.contains("\"role\":\"REMOVED\""), status);
    assertTrue(status.contains("\"upToDate\":[]"), status);
    HttpResponse<String> ready = promptGet(removed.admin(), "/ready");
    assertEquals(503, ready.statusCode(), ready.body());
    assertTrue(ready.body().contains("removed from the cluster configuration"), ready.body());

    // A client of the removed node only: answered at once, definitely, and told why.
    RationClientOptions toRemoved = RationClientOptions.builder()
        .address("127.0.0.1:" + removed.client())
        .connectTimeout(PROMPT).requestDeadline(PROMPT).maxRetries(0).build();
    try (RationClient client = new RationClient(toRemoved)) {
      long start = System.nanoTime();
      RationException write = assertThrows(RationException.class, () -> client.setLimit(
          LimitSpec.builder("acme", "api").ratePerSecond(10).burst(10).build()));
      long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
      assertEquals(ErrorCode.NOT_LEADER, write.code(), write.toString());
      assertTrue(write.definite(), write.toString());
      assertTrue(write.getMessage().contains("removed from the cluster configuration"),
          write.getMessage());
      assertTrue(elapsedMillis < PROMPT.toMillis(), "answered after " + elapsedMillis + " ms");
      assertEquals(Duration.ofSeconds(60), write.retryAfter(), "not again: " + write);
    }
    // A read, from a client of its own: the client above backs off after its refused write
    // before it tries that node again, which may outlast a one-second deadline.
    try (RationClient client = new RationClient(toRemoved)) {
      RationException read = assertThrows(RationException.class,
          () -> client.getLimit("acme", "api"));
      assertEquals(ErrorCode.NOT_LEADER, read.code(), read.toString());
    }

    // The remaining two lead and take writes.
    String newLeader = Waits.upTo(WAIT).every(Duration.ofMillis(200)).until("a ready leader of "
        + rest, () -> readyLeader(ports, rest), id -> !id.isEmpty());
    assertTrue(rest.contains(newLeader), newLeader);
    RationClientOptions toRest = RationClientOptions.builder()
        .addresses(rest.stream().map(id -> "127.0.0.1:" + ports.get(id).client()).toList())
        .requestDeadline(Duration.ofSeconds(20)).build();
    try (RationClient client = new RationClient(toRest)) {
      SetLimitResult set = client.setLimit(
          LimitSpec.builder("acme", "api").ratePerSecond(10).burst(10).build());
      assertEquals(Outcome.SUCCESS, set.outcome(), set.toString());
    }
    String restStatus = promptGet(ports.get(newLeader).admin(), "/status").body();
    assertFalse(restStatus.contains("\"id\":\"" + leader + "\""), restStatus);

    // `cluster caught-up`: a remaining member is a caught-up voter; the removed node never is.
    String restAdmins = String.join(",", rest.stream()
        .map(id -> "127.0.0.1:" + ports.get(id).admin()).toList());
    String member = rest.stream().filter(id -> !id.equals(newLeader)).findFirst().orElseThrow();
    String[] caughtUp = cli("cluster", "caught-up", member, "--admin",
        "127.0.0.1:" + ports.get(member).admin(), "--admin-servers", restAdmins, "--wait", "60s");
    assertEquals("0", caughtUp[0], String.join("\n", caughtUp));
    assertTrue(caughtUp[1].contains(member + " is a voter within"), caughtUp[1]);
    String[] notMember = cli("cluster", "caught-up", leader, "--admin",
        "127.0.0.1:" + removed.admin(), "--admin-servers", restAdmins, "--wait", "2s");
    assertEquals("3", notMember[0], String.join("\n", notMember));
    assertTrue(notMember[2].contains("not caught up within --wait (2s)"), notMember[2]);
  }

  // ---------------------------------------------------------------- helpers

  /** `ration server --config <id>.yaml` on a thread of its own, as a process would run it. */
  private void serve(String id) {
    CommandLine cl = RationCli.commandLine(ClientGateway::open, (config, join) -> {
      NodeLauncher.RunningNode node = RationNodeLauncher.start(config, join);
      nodes.put(config.consensus().nodeId(), node);
      return node;
    });
    String[] args = {"server", "--config", dir.resolve(id + ".yaml").toString()};
    Thread t = new Thread(() -> cl.execute(args), "server-" + id);
    t.setDaemon(true);
    t.start();
    servers.add(t);
    Waits.upTo(WAIT).every(Duration.ofMillis(100)).until(id + " started",
        () -> nodes.containsKey(id), b -> b);
  }

  /** An admin GET that must be answered within {@link #PROMPT}. */
  private HttpResponse<String> promptGet(int port, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(PROMPT).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The id among {@code ids} whose /status says it leads and whose /ready is 200, or "". */
  private String readyLeader(Map<String, Ports> ports, List<String> ids) throws Exception {
    for (String id : ids) {
      try {
        int admin = ports.get(id).admin();
        if (promptGet(admin, "/status").body().contains("\"role\":\"LEADER\"")
            && promptGet(admin, "/ready").statusCode() == 200) {
          return id;
        }
      } catch (IOException e) {
        // Not answering yet (or any more): ask the next.
      }
    }
    return "";
  }
}
