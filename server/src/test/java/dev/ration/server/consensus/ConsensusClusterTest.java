package dev.ration.server.consensus;

import dev.ration.wire.lease.Limit;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.CoordinatorState;
import dev.ration.statemachine.command.LeaseCommand.AcquireLease;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.wire.lease.LimitStatus;
import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import dev.ration.testkit.Waits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Consensus on a real 3-node Ratis cluster over gRPC on loopback with RocksDB state: leader
 * loss, follower catch-up by log and by snapshot installation, whole-cluster restart, group
 * commit, and the bounded queue's definite failures.
 */
class ConsensusClusterTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  /** Snapshot installation, with room for one stalled first attempt (see its test). */
  private static final Duration INSTALL_WAIT = Duration.ofSeconds(75);
  private static final long CLIENT = 0x5EED;
  private final AtomicLong sequence = new AtomicLong(1);

  @TempDir Path dir;

  private RequestKey key() {
    return new RequestKey(CLIENT, 1, sequence.getAndIncrement());
  }

  /** A generous limit: leases last a minute, so no Tick frees anything during a test. */
  private static SetLimit limit(String resource, long rate, long burst) {
    return new SetLimit(new Limit("tenant", resource, rate, burst, Mode.HARD, 60_000, 1_000, 0,
        Policy.FREE_CAPACITY, 0));
  }

  /**
   * For tests that count what one leader's proposer did, submitting to it directly: elections of
   * 2-4 s keep that leader through a pause of a loaded machine (with 300-600 ms a pause that
   * long is an election, and the submits fail NOT_LEADER), and Ticks effectively off keep the
   * ticker out of the counts (checked every 100 ms, a Tick whenever something is due: the slower
   * the test runs, the more entries they take and the more lone commands they send to the queue).
   */
  private static ConsensusOptions oneLeaderNoTicks(ConsensusOptions o) {
    return new ConsensusOptions(o.nodeId(), o.groupId(), o.peers(), o.dataDir(),
        Duration.ofSeconds(2), Duration.ofSeconds(4), o.requestTimeout(),
        o.snapshotThresholdEntries(), o.purgePreservedEntries(), o.segmentSizeBytes(),
        o.batchMaxCommands(), o.batchMaxBytes(), o.batchLinger(), o.maxEntriesInFlight(),
        o.queueCapacity(), Duration.ofHours(1), o.tickMaxItems(), o.stateOptions());
  }

  private static AcquireLease acquire(String resource, String holder, long demand) {
    return new AcquireLease("tenant", resource, holder, demand, demand);
  }

  private static LimitStatus limitStatus(InProcessCluster cluster, String resource) {
    QueryResult r = cluster.query(new Query.GetLimit("tenant", resource), WAIT);
    return ((QueryResult.LimitAnswer) r).limit().orElseThrow();
  }

  private static QueryResult.StatusAnswer status(InProcessCluster cluster) {
    return (QueryResult.StatusAnswer) cluster.query(new Query.Status(), WAIT);
  }

  private static long grantedRate(List<Result> results) {
    return results.stream().filter(r -> r instanceof Result.LeaseGranted)
        .mapToLong(r -> ((Result.LeaseGranted) r).lease().rateShare()).sum();
  }

  private static long appliedIndex(ConsensusNode node) {
    return node.stateMachine().tryWithState(CoordinatorState::appliedIndex).orElse(-1L);
  }

  private static byte[] canonical(ConsensusNode node) {
    return node.stateMachine().tryWithState(CoordinatorState::canonicalState).orElse(new byte[0]);
  }

  /** Every running node has applied the same index and holds byte-equal state. */
  private static void awaitConverged(InProcessCluster cluster) {
    awaitConverged(cluster, WAIT);
  }

  private static void awaitConverged(InProcessCluster cluster, Duration wait) {
    Waits.upTo(wait).every(InProcessCluster.POLL).untilAsserted(
        "all nodes converge on one applied index and state", () -> {
          List<ConsensusNode> nodes = cluster.runningNodes();
          long index = appliedIndex(nodes.get(0));
          byte[] state = canonical(nodes.get(0));
          assertTrue(index > 0, "nothing applied yet");
          for (ConsensusNode n : nodes) {
            assertEquals(index, appliedIndex(n), () -> "applied index of " + cluster.idOf(n));
            assertArrayEquals(state, canonical(n), () -> "canonical state of " + cluster.idOf(n));
          }
        });
  }

  /** Goal: a leader crash loses no grant, raises the epoch, and cannot lead to over-granting. */
  @Test
  void leaderLossKeepsEveryGrantCounted() {
    try (InProcessCluster cluster = new InProcessCluster(dir, 3, o -> o).startAll()) {
      cluster.submit(key(), limit("api", 1_000, 1_000), WAIT);
      List<Result> before = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        before.add(cluster.submit(key(), acquire("api", "h" + i, 100), WAIT));
      }
      long grantedBefore = grantedRate(before);
      assertEquals(500, grantedBefore, "five leases of 100 each: " + before);
      LimitStatus counted = limitStatus(cluster, "api");
      assertEquals(500, counted.countedRate());
      long epochBefore = status(cluster).epoch();

      ConsensusNode oldLeader = cluster.awaitLeader(WAIT);
      String oldId = cluster.idOf(oldLeader);
      cluster.stop(oldId);
      ConsensusNode newLeader = cluster.awaitLeader(WAIT);
      assertNotEquals(oldId, cluster.idOf(newLeader));

      LimitStatus after = limitStatus(cluster, "api");
      assertEquals(counted.countedRate(), after.countedRate(), "grants still counted: " + after);
      assertEquals(counted.countedBurst(), after.countedBurst(), "grants still counted: " + after);
      assertTrue(status(cluster).epoch() > epochBefore, "epoch rose after failover");

      List<Result> more = new ArrayList<>();
      for (int i = 5; i < 15; i++) {
        more.add(cluster.submit(key(), acquire("api", "h" + i, 100), WAIT));
      }
      long grantedAfter = grantedRate(more);
      assertTrue(grantedBefore + grantedAfter <= 1_000,
          "granted " + grantedBefore + " + " + grantedAfter + " > limit 1000: " + more);
      LimitStatus end = limitStatus(cluster, "api");
      assertTrue(end.countedRate() <= 1_000, "counted " + end.countedRate() + " > 1000");
      assertEquals(grantedBefore + grantedAfter, end.countedRate());
    }
  }

  /** Goal: a follower that missed writes catches up from the log and ends byte-equal. */
  @Test
  void stoppedFollowerRejoinsAndCatchesUp() {
    try (InProcessCluster cluster = new InProcessCluster(dir, 3, o -> o).startAll()) {
      cluster.submit(key(), limit("api", 10_000, 10_000), WAIT);
      ConsensusNode leader = cluster.awaitLeader(WAIT);
      String follower = cluster.ids().stream()
          .filter(id -> !id.equals(cluster.idOf(leader))).findFirst().orElseThrow();
      cluster.stop(follower);
      for (int i = 0; i < 20; i++) {
        cluster.submit(key(), acquire("api", "h" + i, 10), WAIT);
      }
      cluster.start(follower);
      awaitConverged(cluster);
      assertEquals(200, limitStatus(cluster, "api").countedRate());
    }
  }

  /** Goal: a follower behind the purged log is brought back by installing a snapshot. */
  @Test
  void followerBehindPurgedLogCatchesUpBySnapshot() {
    try (InProcessCluster cluster = new InProcessCluster(dir, 3, o -> new ConsensusOptions(
        o.nodeId(), o.groupId(), o.peers(), o.dataDir(), o.electionTimeoutMin(),
        o.electionTimeoutMax(), o.requestTimeout(), 10, 0, 8 << 10, o.batchMaxCommands(),
        o.batchMaxBytes(), o.batchLinger(), o.maxEntriesInFlight(), o.queueCapacity(),
        o.tickInterval(), o.tickMaxItems(), o.stateOptions())).startAll()) {
      cluster.submit(key(), limit("api", 100_000, 100_000), WAIT);
      ConsensusNode leader = cluster.awaitLeader(WAIT);
      String follower = cluster.ids().stream()
          .filter(id -> !id.equals(cluster.idOf(leader))).findFirst().orElseThrow();
      long followerIndex = appliedIndex(cluster.node(follower));
      cluster.stop(follower);
      for (int i = 0; i < 120; i++) {
        cluster.submit(key(), acquire("api", "h" + i, 1), WAIT);
      }
      ConsensusNode current = cluster.awaitLeader(WAIT);
      Waits.upTo(WAIT).every(InProcessCluster.POLL).until(
          "leader purged its log past the stopped follower at " + followerIndex,
          () -> current.division().getRaftLog().getStartIndex(), start -> start > followerIndex + 1);
      assertTrue(current.stateMachine().snapshots().latest().isPresent(), "leader has a snapshot");

      ConsensusNode back = cluster.start(follower);
      // Ratis's install may need a second attempt: in one CI run the first InstallSnapshot hit
      // the follower while its gRPC server was still starting (UNAVAILABLE), the appender's
      // stream then hung ~30 s before a retry installed it. Allow for one such retry.
      awaitConverged(cluster, INSTALL_WAIT);
      assertTrue(back.stateMachine().snapshots().latest().isPresent(),
          "the follower installed a snapshot");
      assertTrue(back.snapshotInstalls() >= 1,
          "the install is counted (ration_snapshot_installs_total): " + back.snapshotInstalls());
      assertEquals(0, current.snapshotInstalls(), "the leader installed none");
      assertEquals(120, limitStatus(cluster, "api").countedRate());
    }
  }

  /** Goal: stopping and restarting every node loses no acknowledged grant. */
  @Test
  void fullClusterRestartLosesNoAcknowledgedGrant() {
    List<Long> leaseIds = new ArrayList<>();
    InProcessCluster cluster = new InProcessCluster(dir, 3, o -> o).startAll();
    try (cluster) {
      cluster.submit(key(), limit("api", 1_000, 1_000), WAIT);
      for (int i = 0; i < 8; i++) {
        Result r = cluster.submit(key(), acquire("api", "h" + i, 50), WAIT);
        leaseIds.add(assertInstanceOf(Result.LeaseGranted.class, r).lease().leaseId());
      }
      for (String id : cluster.ids()) {
        cluster.stop(id);
      }
      cluster.startAll();
      assertEquals(400, limitStatus(cluster, "api").countedRate());
      QueryResult.LeaseList leases =
          (QueryResult.LeaseList) cluster.query(new Query.ListLeases("tenant", "api"), WAIT);
      List<Long> present = leases.leases().stream().map(l -> l.leaseId()).toList();
      assertTrue(present.containsAll(leaseIds), "leases " + leaseIds + " all in " + present);
      awaitConverged(cluster);
    }
  }

  /**
   * Goal: concurrent commands share Raft entries, each keeps its own result, and a retry with
   * the same key gets the identical first answer.
   */
  @Test
  void groupCommitBatchesCommandsAndKeepsEachResult() throws Exception {
    try (InProcessCluster cluster =
        new InProcessCluster(dir, 3, ConsensusClusterTest::oneLeaderNoTicks).startAll()) {
      ConsensusNode leader = cluster.awaitLeader(WAIT);
      GroupCommitStats start = leader.proposerStats();
      int n = 200;
      List<RequestKey> keys = new ArrayList<>();
      List<CompletableFuture<Result>> futures = new ArrayList<>();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      for (int i = 0; i < n; i++) {
        RequestKey k = key();
        keys.add(k);
        futures.add(leader.submit(k, limit("r" + i, 100 + i, 10), deadline));
      }
      for (int i = 0; i < n; i++) {
        Result r = futures.get(i).get(30, TimeUnit.SECONDS);
        Result.LimitSet set = assertInstanceOf(Result.LimitSet.class, r);
        assertEquals("r" + i, set.limit().resource());
        assertEquals(100 + i, set.limit().ratePerSecond());
      }
      GroupCommitStats end = leader.proposerStats();
      long entries = end.entriesProposed() - start.entriesProposed();
      assertEquals(n, end.commandsProposed() - start.commandsProposed());
      assertTrue(entries <= n / 4, n + " commands took " + entries + " entries");

      Result first = futures.get(7).get();
      Result again = leader.submit(keys.get(7), limit("r7", 107, 10), deadline)
          .get(30, TimeUnit.SECONDS);
      assertEquals(first, again, "a retried key returns the first answer");
    }
  }

  /**
   * Goal: a lone command (nothing queued, nothing in flight) is proposed by the submitting thread
   * itself, still answered only once its entry is committed and applied: every follower has
   * applied each answered command, and each answer is its own command's result.
   */
  @Test
  void loneCommandsTakeTheDirectPathAndAreAnsweredOnlyOnceApplied() throws Exception {
    try (InProcessCluster cluster =
        new InProcessCluster(dir, 3, ConsensusClusterTest::oneLeaderNoTicks).startAll()) {
      ConsensusNode leader = cluster.awaitLeader(WAIT);
      cluster.submit(key(), limit("solo", 1_000, 1_000), WAIT);
      GroupCommitStats start = leader.proposerStats();
      int n = 40;
      for (int i = 0; i < n; i++) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        Result r = leader.submit(key(), acquire("solo", "h" + i, 1), deadline)
            .get(30, TimeUnit.SECONDS);
        assertEquals("h" + i,
            assertInstanceOf(Result.LeaseGranted.class, r).lease().holder());
        // Read the leader's own state without a Raft round: the lease is there already.
        QueryResult local = leader.query(new Query.GetLimit("tenant", "solo"), true, deadline)
            .get(30, TimeUnit.SECONDS);
        assertEquals(i + 1, ((QueryResult.LimitAnswer) local).limit().orElseThrow().leases());
      }
      GroupCommitStats end = leader.proposerStats();
      assertEquals(n, end.commandsProposed() - start.commandsProposed());
      long direct = end.entriesDirect() - start.entriesDirect();
      // No Ticks: the proposer frees the window before it answers, so each next command finds
      // nothing queued and nothing in flight.
      assertEquals(n, direct, n + " lone commands, " + direct + " on the direct path");
      assertEquals(n, limitStatus(cluster, "solo").leases());
    }
  }

  /**
   * Goal: a full queue answers OVERLOADED at once, and commands whose deadline passes while
   * queued are dropped before proposal (definite). The leader is cut off from its only
   * follower, so nothing it proposes can commit and the queue cannot drain; long election
   * timeouts keep it leader (it steps down only after losing its majority for that long).
   */
  @Test
  void fullQueueIsOverloadedAndExpiredCommandsAreNeverProposed() throws Exception {
    try (InProcessCluster cluster = new InProcessCluster(dir, 3, o -> new ConsensusOptions(
        o.nodeId(), o.groupId(), o.peers(), o.dataDir(), Duration.ofSeconds(10),
        Duration.ofSeconds(20), Duration.ofSeconds(30), o.snapshotThresholdEntries(),
        o.purgePreservedEntries(), o.segmentSizeBytes(), 1, o.batchMaxBytes(), Duration.ZERO,
        1, 4, o.tickInterval(), o.tickMaxItems(), o.stateOptions()))) {
      cluster.start("n1");
      cluster.start("n2");
      ConsensusNode leader = cluster.awaitLeader(WAIT);
      String other = cluster.idOf(leader).equals("n1") ? "n2" : "n1";
      cluster.submit(key(), limit("api", 100, 100), WAIT);
      cluster.stop(other);

      // No majority: whatever is proposed stays in flight (one entry at most) and the rest
      // waits in the queue of 4. Submit until the queue refuses; which command got proposed
      // first does not matter (a first design of this test assumed it and raced in CI).
      List<CompletableFuture<Result>> queued = new ArrayList<>();
      CoordinatorException overloaded = null;
      for (int i = 0; i < 20 && overloaded == null; i++) {
        CompletableFuture<Result> f = leader.submit(key(), acquire("api", "q" + i, 1),
            System.nanoTime() + TimeUnit.SECONDS.toNanos(2));
        if (f.isCompletedExceptionally()) {
          overloaded = failure(f);
        } else {
          queued.add(f);
        }
      }
      assertNotNull(overloaded, "the queue of 4 never refused within 20 submissions");
      assertEquals(CoordinatorException.Reason.OVERLOADED, overloaded.reason());
      assertFalse(overloaded.proposed());
      assertTrue(overloaded.retryAfterMillis() > 0);

      // The queued commands pass their 2 s deadline before they can be proposed: each is
      // dropped with a definite DEADLINE_EXCEEDED. The proposed one (if any) cannot commit.
      int expired = 0;
      int pending = 0;
      for (CompletableFuture<Result> f : queued) {
        try {
          f.get(8, TimeUnit.SECONDS);
          throw new AssertionError("a command committed without a majority");
        } catch (TimeoutException stillInFlight) {
          pending++;
        } catch (ExecutionException e) {
          CoordinatorException c = assertInstanceOf(CoordinatorException.class, e.getCause());
          if (c.reason() == CoordinatorException.Reason.DEADLINE_EXCEEDED && !c.proposed()) {
            expired++;
          }
        }
      }
      assertTrue(expired >= 3, "at least three queued commands expired unproposed, got " + expired
          + " of " + queued.size() + " (" + pending + " still in flight)");
      assertTrue(leader.proposerStats().droppedExpired() >= 3);
    }
  }

  private static CoordinatorException failure(CompletableFuture<?> f) throws Exception {
    try {
      Object value = f.get(10, TimeUnit.SECONDS);
      throw new AssertionError("expected a failure, got " + value);
    } catch (ExecutionException e) {
      return assertInstanceOf(CoordinatorException.class, e.getCause());
    }
  }
}
