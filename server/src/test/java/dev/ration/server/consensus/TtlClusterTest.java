package dev.ration.server.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.command.TtlCommand.PutEntry;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import dev.ration.wire.Bytes;
import dev.ration.statemachine.query.EntryView;
import dev.ration.testkit.Waits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TTL entries on a real 3-node Ratis cluster over RocksDB: a leader change between a put and its
 * expiry, with the new leader's clock running behind (a quarter of real speed), and expiry
 * judged before any Tick. Safety, asserted on every read: a returned entry is never past its
 * expiry at the read's own judged time (readAtMillis < expiresAtMillis); no entry is lost;
 * replicas agree.
 */
class TtlClusterTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  /** A monotonic clock whose rate can be changed while it runs (never goes backwards). */
  static final class RateClock implements LongSupplier {
    private long baseReal = System.nanoTime();
    private long baseValue = baseReal;
    private double rate = 1.0;

    @Override
    public synchronized long getAsLong() {
      return baseValue + (long) ((System.nanoTime() - baseReal) * rate);
    }

    synchronized void setRate(double newRate) {
      long now = getAsLong();
      baseReal = System.nanoTime();
      baseValue = now;
      rate = newRate;
    }
  }

  private static final AtomicLong sequence = new AtomicLong(1);

  private static RequestKey key() {
    return new RequestKey(4, 4, sequence.getAndIncrement());
  }

  private static Result.EntryWritten put(InProcessCluster c, String key, long ttlMillis) {
    return (Result.EntryWritten) c.submit(key(),
        new PutEntry("ns", key, Bytes.utf8("v-" + key), ttlMillis), WAIT);
  }

  private static QueryResult.EntryAnswer get(InProcessCluster c, String key) {
    return (QueryResult.EntryAnswer) c.query(new Query.GetEntry("ns", key), WAIT);
  }

  private static QueryResult.EntryAnswer localGet(ConsensusNode n, String key) throws Exception {
    return (QueryResult.EntryAnswer) n.query(new Query.GetEntry("ns", key), true,
        System.nanoTime() + TimeUnit.SECONDS.toNanos(5)).get(5, TimeUnit.SECONDS);
  }

  /** Every read: a present entry is not expired at the time the read was judged. */
  private static Optional<EntryView> checked(QueryResult.EntryAnswer a) {
    a.entry().ifPresent(e -> assertTrue(a.readAtMillis() < e.expiresAtMillis(),
        "read returned " + e + " judged at " + a.readAtMillis() + " >= its expiresAt"));
    return a.entry();
  }

  /**
   * Goal: a put, then the leader dies before the entry expires; the new leader's clock runs
   * slow. Reads through it never return the entry once it is expired at the judged time, the
   * entry does expire (ledger time keeps moving), and the long-lived and never-expiring entries
   * survive on every replica, with the same versions.
   */
  @Test
  void leaderChangeBetweenPutAndExpiryWithNewLeaderClockBehind(@TempDir Path dir) throws Exception {
    Map<String, RateClock> clocks = new HashMap<>();
    try (InProcessCluster cluster = new InProcessCluster(dir, 3, o -> o)) {
      cluster.clocks = id -> clocks.computeIfAbsent(id, i -> new RateClock());
      cluster.startAll();
      String first = cluster.idOf(cluster.awaitLeader(WAIT));
      Result.EntryWritten longLived = put(cluster, "long", 600_000);
      Result.EntryWritten forever = put(cluster, "forever", PutEntry.NO_EXPIRY);
      // Written last, right before the read that must find it live: the other writes taking
      // long on a loaded machine do not eat into its 1.5 s.
      Result.EntryWritten shortLived = put(cluster, "short", 1_500);
      assertTrue(checked(get(cluster, "short")).isPresent(), "live before the failover");
      for (Map.Entry<String, RateClock> e : clocks.entrySet()) {
        if (!e.getKey().equals(first)) {
          e.getValue().setRate(0.25); // the next leader's log clock runs behind real time
        }
      }
      cluster.stop(first);
      String second = cluster.idOf(cluster.awaitLeader(WAIT));
      assertTrue(!second.equals(first));
      // Every read is checked as it comes; a failed check fails the test at once.
      Waits.upTo(WAIT).every(Duration.ofMillis(50)).until(
          "the short entry expired through the slow leader", () -> {
            QueryResult.EntryAnswer a = get(cluster, "short");
            Optional<EntryView> e = checked(a);
            if (e.isPresent()) {
              assertEquals(shortLived.version(), e.get().version(), "the entry is the one written");
            } else {
              assertTrue(a.readAtMillis() >= shortLived.expiresAtMillis(),
                  "a miss before expiry at " + a.readAtMillis() + " means the entry was lost");
            }
            checked(get(cluster, "long"))
                .orElseThrow(() -> new AssertionError("long-lived entry lost"));
            return a;
          }, a -> a.entry().isEmpty());
      // The old leader returns (normal clock) and catches up; every replica agrees.
      cluster.start(first);
      long leaderApplied = cluster.awaitLeader(WAIT).status().appliedIndex();
      Waits.upTo(WAIT).every(InProcessCluster.POLL).until("all replicas applied " + leaderApplied,
          () -> cluster.runningNodes().stream().map(n -> n.status().appliedIndex()).toList(),
          applied -> applied.stream().allMatch(i -> i >= leaderApplied));
      for (ConsensusNode n : cluster.runningNodes()) {
        assertEquals(Optional.empty(), checked(localGet(n, "short")), "on " + cluster.idOf(n));
        assertEquals(longLived.version(), checked(localGet(n, "long")).orElseThrow().version());
        assertEquals(forever.version(), checked(localGet(n, "forever")).orElseThrow().version());
        assertEquals(Long.MAX_VALUE, localGet(n, "forever").entry().orElseThrow().expiresAtMillis());
      }
    }
  }

  /**
   * Goal: with Ticks effectively off, an expired entry is a miss on the linearizable read path
   * while it is still stored (the namespace still counts it): reads judge expiry at
   * max(state now, the leader's log time), not at cleanup.
   */
  @Test
  void expiredIsAMissBeforeAnyTickRemovedIt(@TempDir Path dir) {
    try (InProcessCluster cluster = new InProcessCluster(dir, 3, o -> new ConsensusOptions(
        o.nodeId(), o.groupId(), o.peers(), o.dataDir(), o.electionTimeoutMin(),
        o.electionTimeoutMax(), o.requestTimeout(), o.snapshotThresholdEntries(),
        o.purgePreservedEntries(), o.segmentSizeBytes(), o.batchMaxCommands(), o.batchMaxBytes(),
        o.batchLinger(), o.maxEntriesInFlight(), o.queueCapacity(), Duration.ofHours(1),
        o.tickMaxItems(), o.stateOptions()))) {
      cluster.startAll();
      Result.EntryWritten w = put(cluster, "k", 300);
      Waits.upTo(WAIT).every(Duration.ofMillis(20)).until(
          "entry with expiresAt " + w.expiresAtMillis() + " became a miss",
          () -> checked(get(cluster, "k")), Optional::isEmpty);
      QueryResult.NamespaceAnswer ns = (QueryResult.NamespaceAnswer)
          cluster.query(new Query.GetNamespace("ns"), WAIT);
      assertEquals(1, ns.namespace().orElseThrow().entries(), "still stored: no Tick removed it");
    }
  }
}
