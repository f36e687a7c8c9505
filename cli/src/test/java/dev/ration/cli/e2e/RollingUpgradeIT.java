package dev.ration.cli.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.ClusterStatus;
import dev.ration.client.LimitSpec;
import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.RationException;
import dev.ration.client.tls.ClientTls;
import dev.ration.server.BuildInfo;
import dev.ration.testkit.Waits;
import dev.ration.wire.ErrorCode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A rolling upgrade as docs/OPERATIONS.md ("Upgrades") describes it: a three-node cluster of
 * the previous release (the server built from {@link #PREVIOUS}) is upgraded to this build one
 * node at a time (stop it, start this build on the same data directory, wait until it has
 * caught up) while a client writes limits without pause.
 *
 * <p>Goal: no acknowledged write is lost (every limit whose set was answered is there at the
 * end, with its value, on every node); the client sees no error but retryable ones (a leader
 * change, an overloaded or unavailable node, a deadline: codes whose retry is safe); every node
 * ends on this build, and each upgraded node applies the entries the old ones wrote.
 */
class RollingUpgradeIT {
  /** The previous release: the commit this line of development branched from. */
  static final String PREVIOUS = "c04930a";

  private static final Set<ErrorCode> RETRYABLE = EnumSet.of(ErrorCode.NOT_LEADER, ErrorCode.OVERLOADED,
      ErrorCode.UNAVAILABLE, ErrorCode.DEADLINE_EXCEEDED);

  @Test
  @Timeout(value = 12, unit = TimeUnit.MINUTES)
  void threeNodesUpgradedOneByOneUnderLoadLoseNoAcknowledgedWrite() throws Exception {
    Path sourceRoot = Paths.get("").toAbsolutePath().getParent();
    Path previous = PreviousRelease.build(sourceRoot, PREVIOUS, Paths.get("target", "previous-release"));
    Path oldLauncher = previous.resolve("bin/ration");
    Path newLauncher = sourceRoot.resolve("bin/ration");
    BuildInfo build = BuildInfo.current();

    Path work = Files.createTempDirectory("ration-upgrade-").toRealPath();
    try (ProcessCluster cluster = new ProcessCluster(oldLauncher, sourceRoot.resolve("config/cluster-3"), work)) {
      ProcessCluster.Cli oldVersion = cluster.cli(work, "--version");
      assertTrue(oldVersion.out().contains("commit " + PREVIOUS), "the old launcher runs " + PREVIOUS + ": " + oldVersion);

      cluster.start(work, id -> Map.of());
      Path certs = cluster.certsDir();
      RationClientOptions options = RationClientOptions.builder()
          .addresses(List.of(cluster.servers().split(",")))
          .tls(ClientTls.trusting(certs.resolve("ca.crt"))
              .withKeyPair(certs.resolve("client.admin.crt"), certs.resolve("client.admin.key")))
          .requestDeadline(Duration.ofSeconds(20))
          .connectTimeout(Duration.ofSeconds(5))
          .build();
      try (RationClient client = new RationClient(options); Writer writer = new Writer(client)) {
        // Asked in this JVM, not through the CLI: a JVM start per poll is slow on a busy machine.
        Waits.upTo(Duration.ofSeconds(300)).every(Duration.ofMillis(500)).until("a leader", () -> {
          cluster.assertAllAlive();
          try {
            return client.clusterStatus().leaderId();
          } catch (RationException e) {
            return "";
          }
        }, leaderId -> leaderId != null && !leaderId.isEmpty());
        writer.start();
        writer.awaitAcknowledged(30);
        for (String id : ProcessCluster.IDS) {
          int before = writer.acknowledged.size();
          cluster.stopNode(id);
          cluster.startNode(id, newLauncher, work, Map.of());
          awaitCaughtUp(client, cluster, id);
          // The cluster keeps taking writes with the upgraded node in it.
          writer.awaitAcknowledged(before + 30);
        }
        writer.stopAndJoin();

        assertTrue(writer.unexpected.isEmpty(), "errors beyond retryable ones: " + writer.unexpected);
        assertTrue(writer.acknowledged.size() >= 120, "writes acknowledged: " + writer.acknowledged.size());
        // Every node, each now on this build, holds every acknowledged limit with its value.
        ClusterStatus leader = client.clusterStatus();
        for (String id : ProcessCluster.IDS) {
          awaitApplied(client, cluster, id, leader.commitIndex());
        }
        Map<String, Long> stored = client.listLimits().stream()
            .filter(s -> s.tenant().equals(Writer.TENANT))
            .collect(Collectors.toMap(s -> s.resource(), s -> s.ratePerSecond()));
        List<String> lost = new ArrayList<>();
        writer.acknowledged.forEach((resource, rate) -> {
          if (!rate.equals(stored.get(resource))) {
            lost.add(resource + " (acknowledged rate " + rate + ", stored " + stored.get(resource) + ")");
          }
        });
        assertTrue(lost.isEmpty(), lost.size() + " acknowledged writes lost: " + lost);
      }
      for (String id : ProcessCluster.IDS) {
        String log = cluster.log(id);
        assertTrue(log.contains("event=node_starting node=" + id) && log.contains("version=" + build.version()
            + " commit=" + build.shortCommit()), id + " restarted on this build:\n" + log);
        assertTrue(!log.contains("FATAL"), id + " halted:\n" + log);
      }
      cluster.close();
      assertTrue(cluster.allExited(), "every started node exited");
      PreviousRelease.deleteTree(work);
    } catch (Throwable failed) {
      // Kept for the node logs (WORK/nI.log) and data.
      failed.addSuppressed(new AssertionError("work directory kept: " + work));
      throw failed;
    }
  }

  /** Until node {@code id} answers as a member that has applied the leader's commit index. */
  private static void awaitCaughtUp(RationClient client, ProcessCluster cluster, String id) {
    long target = Waits.upTo(Duration.ofSeconds(300)).every(Duration.ofMillis(250))
        .until("a leader's commit index", () -> {
          try {
            return client.clusterStatus().commitIndex();
          } catch (RationException e) {
            return -1L;
          }
        }, i -> i > 0);
    awaitApplied(client, cluster, id, target);
  }

  private static void awaitApplied(RationClient client, ProcessCluster cluster, String id, long index) {
    String address = cluster.addresses.get(id).get("client");
    // Bounds for a busy machine: a JVM with Ratis starts in seconds on an idle one.
    Waits.upTo(Duration.ofSeconds(300)).every(Duration.ofMillis(250))
        .until(id + " applied index " + index, () -> {
          try {
            cluster.assertAllAlive();
            return client.clusterStatus(address).appliedIndex();
          } catch (RationException e) {
            return -1L;
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        }, applied -> applied >= index);
  }

  /**
   * One thread setting limits with new names, one after another, until stopped (at most 20 000
   * writes, so the load is bounded whatever happens). An acknowledged set is remembered with its
   * rate; a failure with a retryable code may or may not have taken effect and is only counted;
   * any other failure is kept as unexpected.
   */
  private static final class Writer implements AutoCloseable {
    static final String TENANT = "upgrade";
    private static final int MAX_WRITES = 20_000;

    final Map<String, Long> acknowledged = new ConcurrentHashMap<>();
    final List<String> unexpected = new CopyOnWriteArrayList<>();
    final AtomicInteger retryable = new AtomicInteger();
    private final RationClient client;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread thread;

    Writer(RationClient client) {
      this.client = client;
      this.thread = new Thread(this::run, "upgrade-writer");
      thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    private void run() {
      for (int i = 0; i < MAX_WRITES && !stop.get(); i++) {
        String resource = "r-" + i;
        long rate = 10 + i % 1000;
        try {
          client.setLimit(LimitSpec.builder(TENANT, resource).ratePerSecond(rate).burst(rate).build());
          acknowledged.put(resource, rate);
        } catch (RationException e) {
          if (RETRYABLE.contains(e.code())) {
            retryable.incrementAndGet();
          } else {
            unexpected.add(resource + ": " + e);
          }
        } catch (RuntimeException e) {
          unexpected.add(resource + ": " + e);
        }
      }
    }

    void awaitAcknowledged(int n) {
      Waits.upTo(Duration.ofSeconds(300)).every(Duration.ofMillis(100))
          .until(n + " acknowledged writes", () -> acknowledged.size() + unexpected.size() * 1_000_000,
              c -> c >= n || !thread.isAlive());
      assertTrue(unexpected.isEmpty(), "errors beyond retryable ones: " + unexpected);
      assertTrue(acknowledged.size() >= n, "the writer stopped after " + acknowledged.size() + " writes");
    }

    void stopAndJoin() throws InterruptedException {
      stop.set(true);
      thread.join(TimeUnit.SECONDS.toMillis(60));
      assertEquals(false, thread.isAlive(), "the writer stops");
    }

    @Override
    public void close() throws InterruptedException {
      stopAndJoin();
    }
  }
}
