package dev.ration.cli.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.LeaseResult;
import dev.ration.client.LimitSpec;
import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.RenewalReport;
import dev.ration.client.limiter.LeaseInfo;
import dev.ration.client.tls.ClientTls;
import dev.ration.testkit.Waits;
import dev.ration.wire.Outcome;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Twenty membership changes in a row on real node processes (the shipped configuration: TLS,
 * authorization) while sixteen renewals are always in flight: per cycle, a newcomer added on an
 * empty disk, the leader removed (stopped, its disk wiped), that node added back on its empty
 * disk (a replaced node), and the newcomer removed; five cycles. Each change goes through the
 * CLI as an operator runs it; when the CLI says ok, every member is a running process, answers
 * as LEADER or FOLLOWER, lists exactly the members as voters, and is caught up (`cluster
 * caught-up`). The renewals go on through every change.
 *
 * <p>About eight minutes on a 2-core machine, so it runs on request, not in every build:
 * {@code scripts/membership-changes.sh} ({@code -Dration.membershipChanges=true}).
 */
@org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = "ration.membershipChanges", matches = "true")
@Timeout(value = 25, unit = TimeUnit.MINUTES)
class MembershipChangesIT {
  private static final int IN_FLIGHT = 16;

  @TempDir Path dir;

  @Test
  void twentyChangesUnderLoadLeaveEveryMemberALiveCaughtUpVoter() throws Exception {
    Path root = Path.of("").toAbsolutePath().getParent();
    try (ProcessCluster cluster = new ProcessCluster(root.resolve("bin/ration"),
        root.resolve("config/cluster-3"), dir.resolve("run"))) {
      cluster.start(root, id -> Map.of());
      cluster.awaitLeader(root);
      cluster.addNodeConfig("n4");
      TreeSet<String> members = new TreeSet<>(List.of("n1", "n2", "n3"));
      try (Load load = new Load(cluster)) {
        load.start();
        int changes = 0;
        for (int cycle = 0; cycle < 5; cycle++) {
          add(cluster, root, "n4", members);
          changes++;
          String leader = leaderOf(cluster, root, members);
          remove(cluster, root, leader, members);
          changes++;
          add(cluster, root, leader, members);
          changes++;
          remove(cluster, root, "n4", members);
          changes++;
          load.assertProgress("after cycle " + cycle);
        }
        assertEquals(20, changes);
      }
    }
  }

  private static void add(ProcessCluster cluster, Path root, String id, TreeSet<String> members)
      throws Exception {
    cluster.wipe(id);
    cluster.startJoining(id, root);
    Map<String, String> a = cluster.addresses.get(id);
    ProcessCluster.Cli r = cluster.cli(root, "cluster", "add", id, "--raft", a.get("raft"),
        "--client", a.get("client"), "--admin", a.get("admin"), "--admin-servers",
        admins(cluster, members), "--wait", "3m");
    assertEquals(0, r.exitCode(), r.toString());
    assertTrue(r.out().contains("ok"), r.toString());
    members.add(id);
    verify(cluster, root, members, "after adding " + id);
  }

  private static void remove(ProcessCluster cluster, Path root, String id, TreeSet<String> members)
      throws Exception {
    ProcessCluster.Cli r = cluster.cli(root, "cluster", "remove", id, "--admin-servers",
        admins(cluster, members), "--wait", "3m");
    assertEquals(0, r.exitCode(), r.toString());
    members.remove(id);
    cluster.stopNode(id); // a removed node is stopped by its operator; its exit code says nothing here
    verify(cluster, root, members, "after removing " + id);
  }

  /**
   * Every member runs (at once: the CLI's ok came after the change), and within a few
   * heartbeats every member answers as LEADER or FOLLOWER with one leader among them and lists
   * exactly the members as voters (a follower learns a committed change with the leader's next
   * append); then each is caught up (`cluster caught-up`).
   */
  private static void verify(ProcessCluster cluster, Path root, TreeSet<String> members, String when)
      throws Exception {
    cluster.assertAlive(members);
    String voters = String.join(",", members);
    Waits.upTo(Duration.ofSeconds(15)).every(Duration.ofMillis(500)).until(
        when + ": every member a running voter of " + voters + ", one leader", () -> {
          try {
            ProcessCluster.Cli status = cluster.cli(root, "cluster", "status", "--servers",
                clients(cluster, members), "--output", "json", "--timeout", "5s");
            if (status.exitCode() != 0) {
              return status.toString();
            }
            List<Map<String, Object>> rows = EndToEndIT.list(status.json().get("servers")).stream()
                .map(EndToEndIT::map).toList();
            long leaders = rows.stream().filter(r -> "LEADER".equals(r.get("role"))).count();
            boolean settled = rows.size() == members.size() && leaders == 1 && rows.stream()
                .allMatch(r -> Boolean.TRUE.equals(r.get("reachable"))
                    && ("LEADER".equals(r.get("role")) || "FOLLOWER".equals(r.get("role")))
                    && voters.equals(r.get("members")));
            return settled ? "settled" : status.out();
          } catch (Exception e) {
            return e.toString();
          }
        }, "settled"::equals);
    cluster.assertAlive(members);
    for (String id : members) {
      ProcessCluster.Cli caughtUp = cluster.cli(root, "cluster", "caught-up", id, "--admin",
          cluster.admin(id), "--admin-servers", admins(cluster, members), "--wait", "1m");
      assertEquals(0, caughtUp.exitCode(), when + ": " + caughtUp);
    }
  }

  private static String leaderOf(ProcessCluster cluster, Path root, TreeSet<String> members)
      throws Exception {
    ProcessCluster.Cli status = cluster.cli(root, "cluster", "status", "--servers",
        clients(cluster, members), "--output", "json", "--timeout", "5s");
    return String.valueOf(ProcessCluster.leaderRow(status).orElseThrow(
        () -> new AssertionError("no leader: " + status)).get("id"));
  }

  private static String admins(ProcessCluster cluster, TreeSet<String> members) {
    return members.stream().map(cluster::admin).collect(Collectors.joining(","));
  }

  private static String clients(ProcessCluster cluster, TreeSet<String> members) {
    return members.stream().map(id -> cluster.addresses.get(id).get("client"))
        .collect(Collectors.joining(","));
  }

  /** Sixteen holders renewing their leases back to back through one client of every address. */
  private static final class Load implements AutoCloseable {
    private final RationClient client;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong renewed = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final List<Thread> threads = new ArrayList<>();
    private long renewedAtLastCheck;

    Load(ProcessCluster cluster) {
      List<String> addresses = new ArrayList<>();
      cluster.addresses.values().forEach(r -> addresses.add(r.get("client")));
      Path certs = cluster.certsDir();
      client = new RationClient(RationClientOptions.builder().addresses(addresses)
          .tls(ClientTls.trusting(certs.resolve("ca.crt"))
              .withKeyPair(certs.resolve("client.admin.crt"), certs.resolve("client.admin.key")))
          .requestDeadline(Duration.ofSeconds(10)).build());
      assertEquals(Outcome.SUCCESS, client.setLimit(LimitSpec.builder("members", "api")
          .ratePerSecond(100_000).burst(100_000).leaseDuration(Duration.ofSeconds(30)).build())
          .outcome());
    }

    void start() {
      for (int i = 0; i < IN_FLIGHT; i++) {
        String holder = "h" + i;
        Thread t = new Thread(() -> run(holder), "renew-" + holder);
        t.setDaemon(true);
        t.start();
        threads.add(t);
      }
    }

    private void run(String holder) {
      LeaseInfo lease = null;
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(25);
      while (running.get() && System.nanoTime() < deadline) {
        try {
          LeaseResult r = lease == null ? client.acquireLease("members", "api", holder, 10, 10)
              : client.renewLease(RenewalReport.builder(lease.leaseId(), lease.version())
                  .demand(10, 10).build());
          if (r.outcome() == Outcome.SUCCESS) {
            lease = r.lease().orElseThrow();
            renewed.incrementAndGet();
          } else {
            lease = null;
            failed.incrementAndGet();
          }
        } catch (RuntimeException e) {
          failed.incrementAndGet();
          lease = null;
        }
      }
    }

    /** Renewals went on since the last check. */
    void assertProgress(String when) {
      Waits.upTo(Duration.ofSeconds(60)).every(Duration.ofMillis(200)).until(
          "renewals " + when, renewed::get, n -> n > renewedAtLastCheck + IN_FLIGHT);
      renewedAtLastCheck = renewed.get();
    }

    @Override
    public void close() throws InterruptedException {
      running.set(false);
      for (Thread t : threads) {
        t.join(TimeUnit.SECONDS.toMillis(30));
      }
      client.close();
    }
  }
}
