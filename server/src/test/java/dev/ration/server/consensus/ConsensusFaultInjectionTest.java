package dev.ration.server.consensus;

import dev.ration.wire.lease.Limit;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.CoordinatorState;
import dev.ration.statemachine.command.LeaseCommand.AcquireLease;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.lease.LimitStatus;
import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import dev.ration.testkit.Waits;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.server.impl.BlockRequestHandlingInjection;
import org.apache.ratis.server.impl.DelayLocalExecutionInjection;
import org.apache.ratis.util.CodeInjectionForTesting;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * In-process network faults on a real 3-node cluster (Ratis over gRPC on loopback, RocksDB),
 * with Ratis's own test injections: leader isolation (every peer stalls the
 * leader's requests and the leader stalls everything it receives) and slow replication (a
 * follower handles each appendEntries late). The netns Jepsen suite covers the same faults
 * between real processes; these run on every build, without root.
 *
 * <p>The injection points are a static JVM-wide map: these tests must not run in parallel with
 * other Ratis tests in the same JVM (Surefire runs classes one at a time here). Every test
 * unblocks and removes the points in {@link #clearInjections} before the cluster is closed, so a
 * stalled gRPC handler cannot hang the shutdown.
 */
class ConsensusFaultInjectionTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final long CLIENT = 0xFA17;
  private static final long RATE = 1_000;
  private static final long BURST = 1_000;
  private final AtomicLong sequence = new AtomicLong(1);
  private InProcessCluster cluster;
  private DelayLocalExecutionInjection delay;

  @TempDir Path dir;

  /** Elections of 600–1200 ms: the blocked or slowed peers stay clear of spurious elections. */
  private InProcessCluster newCluster() {
    cluster = new InProcessCluster(dir, 3, o -> new ConsensusOptions(
        o.nodeId(), o.groupId(), o.peers(), o.dataDir(),
        Duration.ofMillis(600), Duration.ofMillis(1200), o.requestTimeout(),
        o.snapshotThresholdEntries(), o.purgePreservedEntries(), o.segmentSizeBytes(),
        o.batchMaxCommands(), o.batchMaxBytes(), o.batchLinger(), o.maxEntriesInFlight(),
        o.queueCapacity(), o.tickInterval(), o.tickMaxItems(), o.stateOptions()));
    return cluster.startAll();
  }

  @AfterEach
  void clearInjections() {
    BlockRequestHandlingInjection.getInstance().unblockAll();
    if (delay != null) {
      delay.clear();
    }
    for (String point : List.of("REQUEST_VOTE", "APPEND_ENTRIES", "INSTALL_SNAPSHOT")) {
      CodeInjectionForTesting.remove(point(point));
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  /** RaftServerImpl (package-private) holds the injection point names as constants: read them. */
  private static String point(String constant) {
    try {
      Field f = Class.forName("org.apache.ratis.server.impl.RaftServerImpl").getDeclaredField(constant);
      f.setAccessible(true);
      return (String) f.get(null);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError("Ratis injection point " + constant, e);
    }
  }

  private RequestKey key() {
    return new RequestKey(CLIENT, 1, sequence.getAndIncrement());
  }

  /** Leases last a minute, so no Tick frees capacity while a test runs. */
  private static SetLimit limit() {
    return new SetLimit(new Limit("tenant", "api", RATE, BURST, Mode.HARD, 60_000, 1_000, 0,
        Policy.FREE_CAPACITY, 0));
  }

  private static AcquireLease acquire(String holder, long demand) {
    return new AcquireLease("tenant", "api", holder, demand, demand);
  }

  /**
   * Submit to whichever node other than {@code excluded} leads at each attempt, retrying
   * transient refusals with the same key, within WAIT: the majority may hold another election
   * while the test runs (a loaded machine pauses heartbeats), and a command sent once to the
   * leader found earlier would then be refused NOT_LEADER until WAIT ran out.
   */
  private Result submitToLeaderOtherThan(String excluded, RequestKey key, Command command) {
    return Waits.upTo(WAIT).every(Duration.ofMillis(50)).retrying("submit " + command,
        e -> e instanceof ExecutionException || e instanceof TimeoutException,
        () -> awaitLeaderOtherThan(excluded)
            .submit(key, command, System.nanoTime() + TimeUnit.SECONDS.toNanos(5))
            .get(10, TimeUnit.SECONDS));
  }

  private static <T extends QueryResult> T queryOn(ConsensusNode node, Query query, Class<T> type) {
    try {
      return type.cast(node.query(query, false, System.nanoTime() + TimeUnit.SECONDS.toNanos(10))
          .get(15, TimeUnit.SECONDS));
    } catch (ExecutionException | TimeoutException e) {
      throw new AssertionError("query " + query + " on the leader failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static long grantedRate(List<Result> results) {
    return results.stream().filter(r -> r instanceof Result.LeaseGranted)
        .mapToLong(r -> ((Result.LeaseGranted) r).lease().rateShare()).sum();
  }

  /**
   * The conservation sums on a leader: the limit's counted shares equal the sum over its live
   * leases, stay within R and B, and include every grant a client saw.
   */
  private static void assertConserved(ConsensusNode leader, long grantedSeen, String context) {
    LimitStatus s = queryOn(leader, new Query.GetLimit("tenant", "api"), QueryResult.LimitAnswer.class)
        .limit().orElseThrow(() -> new AssertionError("limit missing on the leader: " + context));
    List<LeaseView> leases =
        queryOn(leader, new Query.ListLeases("tenant", "api"), QueryResult.LeaseList.class).leases();
    long sumRate = leases.stream().mapToLong(LeaseView::countedRate).sum();
    long sumBurst = leases.stream().mapToLong(LeaseView::countedBurst).sum();
    String detail = context + ": status " + s + ", leases " + leases + ", granted seen " + grantedSeen;
    assertEquals(sumRate, s.countedRate(), "counted rate = Σ lease rates; " + detail);
    assertEquals(sumBurst, s.countedBurst(), "counted burst = Σ lease bursts; " + detail);
    assertEquals(leases.size(), s.leases(), "lease count; " + detail);
    assertTrue(s.countedRate() <= RATE, "counted rate " + s.countedRate() + " > R " + RATE + "; " + detail);
    assertTrue(s.countedBurst() <= BURST, "counted burst " + s.countedBurst() + " > B " + BURST + "; " + detail);
    assertTrue(s.pool() >= 0, "pool " + s.pool() + " < 0; " + detail);
    assertTrue(grantedSeen <= s.countedRate(),
        "a grant a client saw is not counted: seen " + grantedSeen + "; " + detail);
  }

  private static long appliedIndex(ConsensusNode node) {
    return node.stateMachine().tryWithState(CoordinatorState::appliedIndex).orElse(-1L);
  }

  private static byte[] canonical(ConsensusNode node) {
    return node.stateMachine().tryWithState(CoordinatorState::canonicalState).orElse(new byte[0]);
  }

  private void awaitConverged() {
    Waits.upTo(WAIT).every(InProcessCluster.POLL).untilAsserted(
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

  private ConsensusNode awaitLeaderOtherThan(String excluded) {
    return Waits.upTo(WAIT).every(InProcessCluster.POLL).until(
        "a ready leader other than " + excluded,
        () -> cluster.ids().stream().filter(id -> !id.equals(excluded))
            .map(cluster::node).filter(ConsensusNode::readyLeader).findFirst(),
        Optional::isPresent).orElseThrow();
  }

  /**
   * Goal: an isolated leader cannot grant. The others elect a new leader while the old one may
   * still believe it leads; an acquire sent to the old leader fails or never completes, is not
   * in the new leader's ledger, and the conservation sums hold on the new leader and, after
   * the heal, on every node.
   */
  @Test
  void isolatedLeaderCannotGrant() throws Exception {
    newCluster();
    cluster.submit(key(), limit(), WAIT);
    List<Result> granted = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      granted.add(cluster.submit(key(), acquire("before-" + i, 100), WAIT));
    }
    assertEquals(300, grantedRate(granted), "three grants of 100 before the fault: " + granted);
    // The node isolated is the one leading now, whichever that is after the writes above.
    ConsensusNode oldLeader = cluster.awaitLeader(WAIT);
    String oldId = cluster.idOf(oldLeader);

    // Isolate (RaftTestUtil.isolate): peers stall the old leader's requests, it stalls theirs.
    BlockRequestHandlingInjection block = BlockRequestHandlingInjection.getInstance();
    for (String p : List.of("REQUEST_VOTE", "APPEND_ENTRIES", "INSTALL_SNAPSHOT")) {
      CodeInjectionForTesting.put(point(p), block);
    }
    block.blockReplier(oldId);
    block.blockRequestor(oldId);

    ConsensusNode newLeader = awaitLeaderOtherThan(oldId);
    assertNotEquals(oldId, cluster.idOf(newLeader));

    CompletableFuture<Result> onOld = oldLeader.submit(
        key(), acquire("isolated", 100), System.nanoTime() + TimeUnit.SECONDS.toNanos(3));
    Result oldOutcome = null;
    Throwable oldFailure = null;
    try {
      oldOutcome = onOld.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      oldFailure = e.getCause();
    } catch (TimeoutException e) {
      oldFailure = e; // never completed while isolated: also "cannot grant"
    }
    assertFalse(oldOutcome instanceof Result.LeaseGranted,
        "the isolated old leader " + oldId + " granted a lease: " + oldOutcome);
    assertTrue(oldOutcome != null || oldFailure != null, "no outcome and no failure");

    for (int i = 0; i < 4; i++) {
      granted.add(submitToLeaderOtherThan(oldId, key(), acquire("after-" + i, 100)));
    }
    long seen = grantedRate(granted);
    assertEquals(700, seen, "four more grants on the new leader: " + granted);
    ConsensusNode current = awaitLeaderOtherThan(oldId);
    assertConserved(current, seen, "new leader " + cluster.idOf(current) + " during isolation");
    List<LeaseView> leases =
        queryOn(current, new Query.ListLeases("tenant", "api"), QueryResult.LeaseList.class).leases();
    assertTrue(leases.stream().noneMatch(l -> l.holder().equals("isolated")),
        "the isolated leader's acquire reached the new leader's ledger: " + leases);

    block.unblockAll();
    awaitConverged();
    ConsensusNode leader = cluster.awaitLeader(WAIT);
    assertConserved(leader, seen, "after the heal");
    assertTrue(queryOn(leader, new Query.ListLeases("tenant", "api"), QueryResult.LeaseList.class)
            .leases().stream().noneMatch(l -> l.holder().equals("isolated")),
        "the isolated leader's acquire committed after the heal");
  }

  /**
   * Goal: a slow follower neither loses nor duplicates a grant. Its appendEntries run 100 ms
   * late; grants commit through the other follower; then that one stops, so commits need the
   * slow follower; the stopped node restarts, the delay clears, and every node converges on the
   * same state with the conservation sums intact.
   */
  @Test
  void slowFollowerKeepsGrantsConserved() {
    newCluster();
    ConsensusNode leader = cluster.awaitLeader(WAIT);
    String leaderId = cluster.idOf(leader);
    List<String> followers = cluster.ids().stream().filter(id -> !id.equals(leaderId)).toList();
    String slow = followers.get(0);
    String other = followers.get(1);
    cluster.submit(key(), limit(), WAIT);

    delay = new DelayLocalExecutionInjection(point("APPEND_ENTRIES"));
    delay.setDelayMs(slow, 100);

    List<Result> granted = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      granted.add(cluster.submit(key(), acquire("fast-quorum-" + i, 50), WAIT));
    }
    cluster.stop(other);
    for (int i = 0; i < 4; i++) {
      granted.add(cluster.submit(key(), acquire("slow-quorum-" + i, 50), WAIT));
    }
    long seen = grantedRate(granted);
    assertEquals(400, seen, "eight grants of 50: " + granted);
    assertConserved(cluster.awaitLeader(WAIT), seen, "slow follower " + slow + ", " + other + " stopped");

    cluster.start(other);
    delay.clear();
    awaitConverged();
    assertConserved(cluster.awaitLeader(WAIT), seen, "after the delay cleared");
  }
}
