package dev.ration.cli;

import static dev.ration.cli.CliRuns.cli;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.testkit.FreePorts;
import dev.ration.testkit.Waits;
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
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The membership procedure of docs/OPERATIONS.md ("Membership") as an operator runs it, on real
 * nodes started by `ration server --config FILE [--join]` from YAML files (in this JVM, one
 * thread each): a fourth node started with --join and its own peers list, `ration cluster add`,
 * `cluster status` showing the new configuration on every node, /status naming the files that
 * disagree, `transfer-leader`, a `remove` refused because it would lose the majority, and
 * `remove` of the newcomer.
 */
class MembershipCliTest {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private final Map<String, NodeLauncher.RunningNode> nodes = new ConcurrentHashMap<>();
  private final List<Thread> servers = Collections.synchronizedList(new ArrayList<>());
  private final String group = UUID.randomUUID().toString();
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
  void addTransferRefuseAndRemoveAsDocumented() throws Exception {
    Map<String, Ports> ports = new java.util.TreeMap<>();
    for (String id : List.of("n1", "n2", "n3", "n4")) {
      ports.put(id, new Ports(FreePorts.next(), FreePorts.next(), FreePorts.next()));
    }
    String three = ports.entrySet().stream().filter(e -> !e.getKey().equals("n4"))
        .map(e -> e.getValue().peer(e.getKey())).reduce("", String::concat);
    for (String id : List.of("n1", "n2", "n3")) {
      write(id, three);
      serve(id, false);
    }
    String servers3 = clients(ports, List.of("n1", "n2", "n3"));
    String admins3 = admins(ports, List.of("n1", "n2", "n3"));
    Waits.upTo(WAIT).every(Duration.ofMillis(200)).until("a leader",
        () -> cli("cluster", "status", "--servers", servers3), r -> r[1].contains("LEADER"));

    // The newcomer's own file: the current members plus itself.
    write("n4", three + ports.get("n4").peer("n4"));
    serve("n4", true);
    Ports p4 = ports.get("n4");
    String[] add = cli("cluster", "add", "n4", "--raft", "127.0.0.1:" + p4.raft(),
        "--client", "127.0.0.1:" + p4.client(), "--admin", "127.0.0.1:" + p4.admin(),
        "--admin-servers", admins3, "--wait", "2m");
    assertEquals("0", add[0], String.join("\n", add));
    assertTrue(add[1].contains("n4 added as a voter"), add[1]);
    assertTrue(add[1].contains("n1,n2,n3,n4"), add[1]);

    String servers4 = clients(ports, List.of("n1", "n2", "n3", "n4"));
    Waits.upTo(WAIT).every(Duration.ofMillis(200)).untilAsserted("every node shows four voters", () -> {
      String[] status = cli("cluster", "status", "--servers", servers4, "--output", "json");
      assertEquals("0", status[0], String.join("\n", status));
      assertEquals(4, count(status[1], "\"members\":\"n1,n2,n3,n4\""), status[1]);
    });
    // n1's file still lists three peers: its /status says so; n4's file agrees.
    assertTrue(adminGet(ports.get("n1").admin(), "/status").contains("\"configMismatch\":\"replicated configuration has voters [n1, n2, n3, n4]"),
        adminGet(ports.get("n1").admin(), "/status"));
    assertTrue(adminGet(p4.admin(), "/status").contains("\"configMismatch\":\"\""),
        adminGet(p4.admin(), "/status"));

    String[] transfer = cli("cluster", "transfer-leader", "n4", "--admin-servers", admins3);
    assertEquals("0", transfer[0], String.join("\n", transfer));
    assertTrue(transfer[1].contains("n4 leads"), transfer[1]);

    // The newcomer, now leading, is removed again: leadership moves to a remaining voter.
    String[] remove = cli("cluster", "remove", "n4", "--admin-servers", admins3 + ",127.0.0.1:" + p4.admin());
    assertEquals("0", remove[0], String.join("\n", remove));
    assertTrue(remove[1].contains("n4 removed"), remove[1]);
    nodes.remove("n4").shutdown();
    String[] leader = Waits.upTo(WAIT).every(Duration.ofMillis(200)).until(
        "every node shows three voters and one leader",
        () -> cli("cluster", "status", "--servers", servers3, "--output", "json"),
        r -> count(r[1], "\"members\":\"n1,n2,n3\"") == 3 && count(r[1], "\"role\":\"LEADER\"") == 1);
    String leaderId = leader[1].replaceAll("(?s).*\"id\":\"(n\\d)\",\"role\":\"LEADER\".*", "$1");
    List<String> followers = new ArrayList<>(List.of("n1", "n2", "n3"));
    followers.remove(leaderId);

    // While all answer, the leader counts all three as up to date. Leadership may move while the
    // test waits (an election on a loaded machine), so each probe asks whichever node leads now.
    Waits.upTo(WAIT).every(Duration.ofMillis(200)).until(
        "the leader counts every voter as up to date",
        () -> leaderStatus(ports, List.of("n1", "n2", "n3")),
        s -> s.contains("\"upToDate\":[\"n1\",\"n2\",\"n3\"]"));

    // One follower down: removing the other would leave [leader, down] -- one up to date of two.
    nodes.remove(followers.get(0)).shutdown();
    // The leader counts a silent follower as gone after one election timeout (2s here); its
    // /status lists the voters it still counts as up to date.
    String down = followers.get(0);
    List<String> up = List.of(leaderId, followers.get(1));
    Waits.upTo(WAIT).every(Duration.ofMillis(200)).until(
        "the leader no longer counts " + down + " as up to date",
        () -> leaderStatus(ports, up),
        s -> s.contains("\"upToDate\":[") && !s.contains("\"upToDate\":[]")
            && !s.replaceAll("(?s).*\"upToDate\":\\[([^\\]]*)\\].*", "$1").contains(down));
    String[] lose = Waits.upTo(WAIT).every(Duration.ofMillis(500)).until("a definite answer",
        () -> cli("cluster", "remove", followers.get(1), "--admin-servers", admins3, "--wait", "20s"),
        r -> !r[2].contains("NOT_LEADER") && !r[2].contains("IN_PROGRESS"));
    assertEquals("2", lose[0], String.join("\n", lose));
    assertTrue(lose[2].contains("REFUSED") && lose[2].contains("would lose the majority"), lose[2]);
  }

  // ---------------------------------------------------------------- helpers

  private void write(String id, String peers) throws IOException {
    Files.writeString(dir.resolve(id + ".yaml"), "node:\n  id: " + id + "\n  data-dir: data/" + id
        + "\ncluster:\n  group-id: " + group + "\n  peers:\n" + peers
        + "raft:\n  election-timeout-min: 1s\n  election-timeout-max: 2s\n  request-timeout: 5s\n");
  }

  /** `ration server --config <id>.yaml [--join]` on a thread of its own, as a process would run it. */
  private void serve(String id, boolean join) {
    CommandLine cl = RationCli.commandLine(ClientGateway::open, (config, j) -> {
      NodeLauncher.RunningNode node = RationNodeLauncher.start(config, j);
      nodes.put(config.consensus().nodeId(), node);
      return node;
    });
    List<String> args = new ArrayList<>(List.of("server", "--config", dir.resolve(id + ".yaml").toString()));
    if (join) {
      args.add("--join");
    }
    Thread t = new Thread(() -> cl.execute(args.toArray(String[]::new)), "server-" + id);
    t.setDaemon(true);
    t.start();
    servers.add(t);
    Waits.upTo(WAIT).every(Duration.ofMillis(100)).until(id + " started", () -> nodes.containsKey(id), b -> b);
  }

  private static String adminGet(int port, String path) throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
    return r.body();
  }

  /**
   * The /status of whichever of {@code ids} says it leads, or a line saying none does (an
   * election under way). Nodes are asked in turn; one that does not answer is passed over.
   */
  private static String leaderStatus(Map<String, Ports> ports, List<String> ids) throws Exception {
    List<String> seen = new ArrayList<>();
    for (String id : ids) {
      String status;
      try {
        status = adminGet(ports.get(id).admin(), "/status");
      } catch (IOException e) {
        seen.add(id + ": " + e);
        continue;
      }
      if (status.contains("\"role\":\"LEADER\"")) {
        return status;
      }
      seen.add(id + ": " + status);
    }
    return "no node leads: " + seen;
  }

  private static String clients(Map<String, Ports> ports, List<String> ids) {
    return String.join(",", ids.stream().map(id -> "127.0.0.1:" + ports.get(id).client()).toList());
  }

  private static String admins(Map<String, Ports> ports, List<String> ids) {
    return String.join(",", ids.stream().map(id -> "127.0.0.1:" + ports.get(id).admin()).toList());
  }

  private static int count(String text, String needle) {
    int n = 0;
    for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
      n++;
    }
    return n;
  }
}
