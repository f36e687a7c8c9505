package dev.ration.cli;

import static dev.ration.cli.CliRuns.cli;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.testkit.FreePorts;
import dev.ration.testkit.Waits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Backup and restore as docs/OPERATIONS.md ("Backup and restore", "Disaster recovery: lost
 * majority") describes them, with the documented commands, on real nodes started by
 * `ration server --config FILE` (in this JVM, a thread each):
 *
 * <ol>
 *   <li>cluster A takes leases, TTL entries and reservations from a load thread while
 *       `ration snapshot save` runs against it;
 *   <li>A is stopped; cluster B (a new group id, empty disks) is seeded with `snapshot restore`
 *       on every node and started: it holds every lease, quota, reservation and TTL entry
 *       acknowledged before the save began;
 *   <li>B loses its majority (two nodes killed); the recovery procedure runs: a stale save from
 *       the survivor, the survivor stopped, cluster C restored from it on new disks with a new
 *       group id, started, and checked the same way (plus a write B acknowledged).
 * </ol>
 */
class SnapshotRestoreCliTest {
  private static final Duration WAIT = Duration.ofSeconds(120);
  private final Map<String, NodeLauncher.RunningNode> nodes = new ConcurrentHashMap<>();
  private final List<Thread> servers = Collections.synchronizedList(new ArrayList<>());
  @TempDir Path dir;

  @AfterEach
  void stopAll() throws InterruptedException {
    nodes.values().forEach(NodeLauncher.RunningNode::shutdown);
    for (Thread t : servers) {
      t.join(30_000);
    }
  }

  /** One cluster: three nodes' files under dir/name, client and admin address lists. */
  record Cluster(String name, List<Path> files, String clients, String admins) {}

  @Test
  void savedUnderLoadRestoredIntoNewClustersAndLostMajorityRecovered() throws Exception {
    Cluster a = cluster("a");
    startAll(a);
    awaitLeader(a);
    ok(cli("limit", "set", "--tenant", "acme", "--resource", "api", "--rate", "100000",
        "--burst", "100000", "--lease-duration", "1h", "--servers", a.clients()));
    ok(cli("quota", "set", "--scope", "acme", "--resource", "jobs", "--kind", "concurrent",
        "--limit", "100000", "--actor", "test", "--reason", "backup test", "--servers", a.clients()));

    Load load = new Load(a.clients());
    Thread loader = new Thread(load::run, "load");
    loader.setDaemon(true);
    loader.start();
    Waits.upTo(WAIT).every(Duration.ofMillis(100)).until("some acknowledged writes",
        () -> load.acked.size(), n -> n >= 15);
    long before = System.nanoTime();
    List<String> ackedBeforeSave = load.ackedBefore(before);
    Path backup = dir.resolve("backup.zip");
    String[] save = cli("snapshot", "save", backup.toString(), "--admin-servers", a.admins());
    ok(save);
    assertTrue(save[1].contains("applied"), save[1]);
    Waits.upTo(WAIT).every(Duration.ofMillis(100)).until("writes after the save too",
        () -> load.acked.size(), n -> n >= ackedBeforeSave.size() + 5);
    load.stop = true;
    loader.join(60_000);
    stopAll(a);

    // A new cluster from the backup: a new group id, every node restored from the same file.
    Cluster b = cluster("b");
    for (Path file : b.files()) {
      ok(cli("snapshot", "restore", backup.toString(), "--config", file.toString()));
    }
    startAll(b);
    awaitLeader(b);
    assertHolds(b, ackedBeforeSave);
    // It takes writes: the ledger carries on from the save point.
    ok(cli("ttl", "put", "after-restore", "v", "--ttl", "1h", "--servers", b.clients()));

    // Before the loss, the survivor-to-be has applied what B committed (the procedure says:
    // save from the survivor with the highest applied index).
    Waits.upTo(WAIT).every(Duration.ofMillis(200)).until("b3 applied everything committed",
        () -> cli("cluster", "status", "--servers", b.clients(), "--output", "json")[1],
        json -> {
          List<String> applied = values(json, "appliedIndex");
          return applied.size() == 3 && values(json, "commitIndex").stream().distinct().count() == 1
              && applied.stream().distinct().count() == 1;
        });
    // Lost majority: two of B's nodes die for good.
    List<String> ids = List.of("b1", "b2", "b3");
    nodes.remove("b1").shutdown();
    nodes.remove("b2").shutdown();
    // The recovery procedure, as documented: a stale save from the survivor, then a new cluster.
    String survivorAdmin = b.admins().split(",")[2];
    Path rescued = dir.resolve("rescued.zip");
    ok(cli("snapshot", "save", rescued.toString(), "--stale", "--admin-servers", survivorAdmin));
    nodes.remove("b3").shutdown();
    Cluster c = cluster("c");
    for (Path file : c.files()) {
      ok(cli("snapshot", "restore", rescued.toString(), "--config", file.toString()));
    }
    startAll(c);
    awaitLeader(c);
    assertHolds(c, ackedBeforeSave);
    ok(cli("ttl", "get", "after-restore", "--servers", c.clients()));
    assertEquals(3, ids.size());

    // Restoring into a used data directory, under the backup's own group id, or from a damaged
    // archive is refused.
    String[] used = cli("snapshot", "restore", backup.toString(), "--config", c.files().get(0).toString());
    assertEquals("2", used[0], String.join("\n", used));
    assertTrue(used[2].contains("restore only into an empty data directory"), used[2]);
    String[] sameGroup = cli("snapshot", "restore", backup.toString(), "--config",
        a.files().get(0).toString(), "--data-dir", dir.resolve("fresh1").toString());
    assertEquals("2", sameGroup[0], String.join("\n", sameGroup));
    assertTrue(sameGroup[2].contains("a restored cluster is a new cluster"), sameGroup[2]);
    byte[] bytes = Files.readAllBytes(backup);
    bytes[bytes.length / 2] ^= 0x5A;
    Path damaged = dir.resolve("damaged.zip");
    Files.write(damaged, bytes);
    String[] bad = cli("snapshot", "restore", damaged.toString(), "--config",
        b.files().get(0).toString(), "--data-dir", dir.resolve("fresh2").toString());
    assertEquals("2", bad[0], String.join("\n", bad));
    assertTrue(bad[2].contains("cannot restore"), bad[2]);
    assertTrue(!Files.exists(dir.resolve("fresh2").resolve("state")), "nothing written for a damaged backup");
  }

  private static List<String> values(String json, String field) {
    List<String> out = new ArrayList<>();
    Matcher m = Pattern.compile("\"" + field + "\":(-?\\d+)").matcher(json);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  /** Every acknowledged write is in the cluster: leases, TTL entries, reservations, the quota. */
  private static void assertHolds(Cluster c, List<String> acked) {
    String leases = ok(cli("lease", "list", "--tenant", "acme", "--resource", "api",
        "--output", "json", "--servers", c.clients()))[1];
    String reservations = ok(cli("reservation", "list", "--scope", "acme", "--output", "json",
        "--servers", c.clients()))[1];
    ok(cli("quota", "get", "--scope", "acme", "--resource", "jobs", "--servers", c.clients()));
    int checked = 0;
    for (String item : acked) {
      String[] kv = item.split(":", 2);
      switch (kv[0]) {
        case "lease" -> assertTrue(leases.contains("\"holder\":\"" + kv[1] + "\""),
            "lease of " + kv[1] + " missing: " + leases);
        case "ttl" -> ok(cli("ttl", "get", kv[1], "--servers", c.clients()));
        case "reservation" -> assertTrue(reservations.contains("\"reservationId\":" + kv[1] + ","),
            "reservation " + kv[1] + " missing: " + reservations);
        default -> throw new AssertionError(item);
      }
      checked++;
    }
    assertTrue(checked >= 15, "checked " + checked);
  }

  /** Leases, TTL entries and reservations, one of each per round; what was acknowledged when. */
  static final class Load {
    private final String servers;
    final List<long[]> times = Collections.synchronizedList(new ArrayList<>());
    final List<String> acked = Collections.synchronizedList(new ArrayList<>());
    volatile boolean stop;

    Load(String servers) {
      this.servers = servers;
    }

    void run() {
      long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
      Pattern id = Pattern.compile("\"reservationId\":(\\d+)");
      for (int i = 0; i < 2_000 && !stop && System.nanoTime() < end; i++) {
        if (cli("lease", "acquire", "--tenant", "acme", "--resource", "api", "--holder", "h" + i,
            "--rate", "1", "--burst", "1", "--servers", servers)[0].equals("0")) {
          ack("lease:h" + i);
        }
        if (cli("ttl", "put", "k" + i, "v" + i, "--ttl", "1h", "--servers", servers)[0].equals("0")) {
          ack("ttl:k" + i);
        }
        String[] r = cli("reserve", "--scope", "acme", "--item", "jobs=1", "--ttl", "1h",
            "--output", "json", "--servers", servers);
        Matcher m = id.matcher(r[1]);
        if (r[0].equals("0") && m.find()) {
          ack("reservation:" + m.group(1));
        }
      }
    }

    private void ack(String item) {
      synchronized (acked) {
        acked.add(item);
        times.add(new long[] {System.nanoTime()});
      }
    }

    List<String> ackedBefore(long nanos) {
      synchronized (acked) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < acked.size(); i++) {
          if (times.get(i)[0] < nanos) {
            out.add(acked.get(i));
          }
        }
        return out;
      }
    }
  }

  // ---------------------------------------------------------------- helpers

  private Cluster cluster(String name) throws IOException {
    String group = UUID.randomUUID().toString();
    StringBuilder peers = new StringBuilder();
    List<String> clients = new ArrayList<>();
    List<String> admins = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      int client = FreePorts.next();
      int admin = FreePorts.next();
      clients.add("127.0.0.1:" + client);
      admins.add("127.0.0.1:" + admin);
      peers.append("    - { id: ").append(name).append(i).append(", raft: 127.0.0.1:").append(FreePorts.next())
          .append(", client: 127.0.0.1:").append(client).append(", admin: 127.0.0.1:").append(admin)
          .append(" }\n");
    }
    Path home = Files.createDirectories(dir.resolve(name));
    List<Path> files = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      Path file = home.resolve(name + i + ".yaml");
      Files.writeString(file, "node:\n  id: " + name + i + "\n  data-dir: data/" + name + i
          + "\ncluster:\n  group-id: " + group + "\n  peers:\n" + peers
          + "raft:\n  election-timeout-min: 1s\n  election-timeout-max: 2s\n  request-timeout: 5s\n");
      files.add(file);
    }
    return new Cluster(name, files, String.join(",", clients), String.join(",", admins));
  }

  private void startAll(Cluster c) {
    for (Path file : c.files()) {
      String id = file.getFileName().toString().replace(".yaml", "");
      CommandLine cl = RationCli.commandLine(ClientGateway::open, (config, join) -> {
        NodeLauncher.RunningNode node = RationNodeLauncher.start(config, join);
        nodes.put(config.consensus().nodeId(), node);
        return node;
      });
      Thread t = new Thread(() -> cl.execute("server", "--config", file.toString()), "server-" + id);
      t.setDaemon(true);
      t.start();
      servers.add(t);
      Waits.upTo(WAIT).every(Duration.ofMillis(100)).until(id + " started", () -> nodes.containsKey(id), b -> b);
    }
  }

  private void stopAll(Cluster c) {
    for (int i = 1; i <= 3; i++) {
      NodeLauncher.RunningNode n = nodes.remove(c.name() + i);
      if (n != null) {
        n.shutdown();
      }
    }
  }

  private static void awaitLeader(Cluster c) {
    Waits.upTo(WAIT).every(Duration.ofMillis(200)).until("a leader in " + c.name(),
        () -> cli("cluster", "status", "--servers", c.clients()), r -> r[1].contains("LEADER"));
  }

  private static String[] ok(String[] run) {
    assertEquals("0", run[0], () -> String.join("\n", run));
    return run;
  }
}
