package dev.ration.server.consensus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.server.consensus.Membership.MembershipException;
import dev.ration.server.consensus.Membership.Reason;
import dev.ration.statemachine.CoordinatorState;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.LeaseCommand.AcquireLease;
import dev.ration.statemachine.command.LeaseCommand.RenewLease;
import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import dev.ration.testkit.Waits;
import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.lease.LimitStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Membership changes on real Ratis nodes (gRPC on loopback, RocksDB) while a renewal load
 * runs: a three-node cluster grown to five and shrunk back to three (removing the leader on
 * the way), and a failed node replaced by a newcomer with an empty disk after the log it would
 * need was purged, so it catches up by snapshot. Each ends with zero conservation violations
 * (the ledger's own verifier runs at every snapshot and fail-stops a node; the sums are checked
 * here too), no lost acknowledged renewal, every member on one state, and every member's status
 * showing the new configuration.
 */
class MembershipClusterTest {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final Duration CHANGE = Duration.ofSeconds(120);
  private static final long RATE = 10_000;
  private static final long BURST = 10_000;
  private static final int LEASES = 8;

  @TempDir Path dir;
  private InProcessCluster cluster;
  private RenewalLoad load;

  /** Slow elections for a loaded machine; snapshots every 200 entries, the log purged behind them. */
  private InProcessCluster newCluster() {
    cluster = new InProcessCluster(dir, 3, o -> new ConsensusOptions(
        o.nodeId(), o.groupId(), o.peers(), o.dataDir(),
        Duration.ofMillis(1000), Duration.ofMillis(2000), Duration.ofSeconds(5),
        200, 0, o.segmentSizeBytes(),
        o.batchMaxCommands(), o.batchMaxBytes(), o.batchLinger(), o.maxEntriesInFlight(),
        o.queueCapacity(), o.tickInterval(), o.tickMaxItems(), o.stateOptions()));
    return cluster.startAll();
  }

  @AfterEach
  void tearDown() throws Exception {
    if (load != null) {
      load.stop();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void growToFiveAndShrinkToThreeUnderRenewalLoad() throws Exception {
    newCluster();
    load = new RenewalLoad(cluster);
    load.start();
    load.awaitMore(50);

    Peer n4 = cluster.newPeer("n4");
    Peer n5 = cluster.newPeer("n5");
    cluster.startJoining(n4);
    Membership.Change added4 = onLeader(m -> m.add(n4, CHANGE));
    assertTrue(added4.voters().stream().anyMatch(p -> p.id().equals("n4")), added4.toString());
    load.awaitMore(50);
    cluster.startJoining(n5);
    onLeader(m -> m.add(n5, CHANGE));
    awaitMembersEverywhere(List.of("n1", "n2", "n3", "n4", "n5"));
    load.awaitMore(50);

    // Adding a voter again is a no-op, not a second change.
    assertEquals("n5 is already a voter", onLeader(m -> m.add(n5, CHANGE)).message());

    // A promoted newcomer is a full voter: it can be handed the lead.
    assertEquals("n5 leads", onLeader(m -> m.transferLeader("n5", CHANGE)).message());
    load.awaitMore(50);

    // Shrink back to the original three: remove the leader (n5) itself, then n4.
    onLeader(m -> m.remove("n5", CHANGE));
    cluster.stop("n5");
    load.awaitMore(50);
    onLeader(m -> m.remove("n4", CHANGE));
    cluster.stop("n4");
    load.awaitMore(50);
    awaitMembersEverywhere(List.of("n1", "n2", "n3"));

    load.stop();
    assertNoLostWrites();
  }

  @Test
  void failedNodeReplacedByEmptyDiskAfterLogPurge() throws Exception {
    newCluster();
    load = new RenewalLoad(cluster);
    load.start();
    load.awaitMore(50);

    // n3's disk dies.
    cluster.stop("n3");
    cluster.wipe("n3");
    // Run until the leader has purged the log's beginning: a newcomer must take a snapshot.
    Waits.upTo(Duration.ofMinutes(4)).every(Duration.ofMillis(200)).until("the leader's log purged behind a snapshot",
        () -> cluster.awaitLeader(WAIT).division().getRaftLog().getStartIndex(), start -> start > 1);

    // With n3 down (and silent for longer than an election timeout), removing another voter
    // would leave [leader, n3]: one up to date of two.
    String leader = cluster.idOf(cluster.awaitLeader(WAIT));
    String other = leader.equals("n1") ? "n2" : "n1";
    MembershipException lose = refusedOnLeader(m -> m.remove(other, CHANGE));
    assertEquals(Reason.REFUSED, lose.reason(), lose.getMessage());
    assertTrue(lose.getMessage().contains("would lose the majority"), lose.getMessage());
    MembershipException unknown = refusedOnLeader(m -> m.remove("n9", CHANGE));
    assertEquals(Reason.BAD_REQUEST, unknown.reason(), unknown.getMessage());

    Peer n6 = cluster.newPeer("n6");
    ConsensusNode newcomer = cluster.startJoining(n6);
    assertTrue(newcomer.configMismatch().contains("not in the replicated configuration"),
        newcomer.configMismatch());
    Membership.Change replaced = onLeader(m -> m.replace("n3", n6, CHANGE));
    assertEquals("n3 replaced by n6", replaced.message());
    awaitMembersEverywhere(List.of("n1", "n2", "n6"));
    // It caught up by snapshot: its log begins after the entries the leader had purged.
    assertTrue(newcomer.division().getRaftLog().getStartIndex() > 1,
        "n6's log starts at " + newcomer.division().getRaftLog().getStartIndex());
    load.awaitMore(50);

    // The files still list n3: every node says so, and the replicated configuration wins on restart.
    assertTrue(cluster.node("n1").configMismatch().contains("voters [n1, n2, n6]"),
        cluster.node("n1").configMismatch());
    cluster.stop("n1");
    ConsensusNode restarted = cluster.start("n1");
    assertEquals(List.of("n1", "n2", "n6"),
        restarted.members().voters().stream().map(Peer::id).toList());
    assertTrue(restarted.status().configMismatch().contains("n3"), restarted.status().configMismatch());

    load.stop();
    assertNoLostWrites();
  }

  // ---------------------------------------------------------------- helpers

  @FunctionalInterface
  interface MembershipCall {
    Membership.Change call(Membership m) throws MembershipException;
  }

  /** A change's answer on the leader: what it did, or the definite refusal. */
  private record Answer(Membership.Change change, MembershipException refusal) {}

  /**
   * Runs {@code call} on the current leader within {@link #CHANGE}, asking again after
   * NOT_LEADER or IN_PROGRESS (the leader found before the call may have lost an election by the
   * time it arrives, or a change of its own may still be finishing).
   */
  private Answer onCurrentLeader(MembershipCall call) {
    return Waits.upTo(CHANGE).every(Duration.ofMillis(200)).retrying("a leader answering the change",
        e -> e instanceof MembershipException m
            && (m.reason() == Reason.NOT_LEADER || m.reason() == Reason.IN_PROGRESS),
        () -> {
          Membership m = cluster.awaitLeader(WAIT).membership();
          try {
            return new Answer(call.call(m), null);
          } catch (MembershipException e) {
            if (e.reason() == Reason.NOT_LEADER || e.reason() == Reason.IN_PROGRESS) {
              throw e;
            }
            return new Answer(null, e);
          }
        });
  }

  /** Runs a change on the current leader, following leadership changes, within {@link #CHANGE}. */
  private Membership.Change onLeader(MembershipCall call) {
    Answer a = onCurrentLeader(call);
    if (a.refusal() != null) {
      throw new AssertionError("membership change failed: " + a.refusal().reason() + " "
          + a.refusal().getMessage(), a.refusal());
    }
    return a.change();
  }

  /** Runs a change that must be refused on the current leader and answers the refusal. */
  private MembershipException refusedOnLeader(MembershipCall call) {
    Answer a = onCurrentLeader(call);
    if (a.refusal() == null) {
      throw new AssertionError("a change that must be refused was made: " + a.change());
    }
    return a.refusal();
  }

  private void awaitMembersEverywhere(List<String> voters) {
    List<String> sorted = voters.stream().sorted().toList();
    Waits.upTo(WAIT).every(Duration.ofMillis(100)).untilAsserted(
        "every member's status shows voters " + sorted, () -> {
          for (String id : sorted) {
            NodeStatus s = cluster.node(id).status();
            assertEquals(sorted, s.peers().stream().map(Peer::id).toList(), "peers on " + id);
            assertEquals(List.of(), s.listeners(), "listeners on " + id);
          }
        });
  }

  private void assertNoLostWrites() {
    assertEquals(List.of(), load.lost, "renewals refused as if an acknowledged write was lost");
    assertTrue(load.acknowledged.get() > 200, "too little load: " + load.acknowledged.get());
    ConsensusNode leader = cluster.awaitLeader(WAIT);
    List<LeaseView> leases = query(leader, new Query.ListLeases("tenant", "api"),
        QueryResult.LeaseList.class).leases();
    for (Map.Entry<Long, Long> e : load.versions.entrySet()) {
      LeaseView lease = leases.stream().filter(l -> l.leaseId() == e.getKey()).findFirst()
          .orElseThrow(() -> new AssertionError("acknowledged lease " + e.getKey() + " is gone: " + leases));
      assertTrue(lease.version() >= e.getValue(), "lease " + e.getKey() + " at version "
          + lease.version() + " but version " + e.getValue() + " was acknowledged");
    }
    LimitStatus s = query(leader, new Query.GetLimit("tenant", "api"), QueryResult.LimitAnswer.class)
        .limit().orElseThrow();
    assertEquals(leases.stream().mapToLong(LeaseView::countedRate).sum(), s.countedRate(), s.toString());
    assertEquals(leases.stream().mapToLong(LeaseView::countedBurst).sum(), s.countedBurst(), s.toString());
    assertTrue(s.countedRate() <= RATE && s.countedBurst() <= BURST && s.pool() >= 0, s.toString());
    Waits.upTo(WAIT).every(InProcessCluster.POLL).untilAsserted(
        "all members converge on one applied index and state", () -> {
          List<ConsensusNode> nodes = cluster.runningNodes();
          ConsensusNode first = nodes.get(0);
          for (ConsensusNode n : nodes) {
            assertEquals(applied(first), applied(n), () -> "applied index of " + cluster.idOf(n));
            assertArrayEquals(canonical(first), canonical(n), () -> "state of " + cluster.idOf(n));
          }
        });
    assertEquals(List.of(), cluster.fatalErrors, "invariant violations (fail-stop)");
  }

  private static long applied(ConsensusNode node) {
    return node.stateMachine().tryWithState(CoordinatorState::appliedIndex).orElse(-1L);
  }

  private static byte[] canonical(ConsensusNode node) {
    return node.stateMachine().tryWithState(CoordinatorState::canonicalState).orElse(new byte[0]);
  }

  private static <T extends QueryResult> T query(ConsensusNode node, Query q, Class<T> type) {
    try {
      return type.cast(node.query(q, false, System.nanoTime() + TimeUnit.SECONDS.toNanos(20))
          .get(30, TimeUnit.SECONDS));
    } catch (Exception e) {
      throw new AssertionError("query " + q, e);
    }
  }


  /**
   * Acquires {@link #LEASES} leases, then renews them round robin, each renewal presenting the
   * last version acknowledged for it (bounded: 50,000 renewals or 10 minutes). A renewal the
   * ledger refuses as VERSION_MISMATCH or LEASE_UNKNOWN means an acknowledged write was lost.
   * A renewal that got no answer is indeterminate and skipped (versions only grow).
   */
  static final class RenewalLoad {
    private final InProcessCluster cluster;
    private final AtomicLong sequence = new AtomicLong(1);
    final AtomicLong acknowledged = new AtomicLong();
    final Map<Long, Long> versions = new ConcurrentHashMap<>();
    final List<String> lost = Collections.synchronizedList(new ArrayList<>());
    private volatile boolean stopped;
    private Thread thread;

    RenewalLoad(InProcessCluster cluster) {
      this.cluster = cluster;
    }

    void start() {
      submit(new SetLimit(new Limit("tenant", "api", RATE, BURST, Mode.HARD, 60_000, 1_000, 0,
          Policy.FREE_CAPACITY, 0)));
      for (int i = 0; i < LEASES; i++) {
        Result r = submit(new AcquireLease("tenant", "api", "h" + i, 100, 100)).orElseThrow();
        LeaseView lease = ((Result.LeaseGranted) r).lease();
        versions.put(lease.leaseId(), lease.version());
      }
      thread = new Thread(this::run, "renewal-load");
      thread.setDaemon(true);
      thread.start();
    }

    private void run() {
      long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
      List<Long> ids = new ArrayList<>(versions.keySet());
      for (int i = 0; i < 50_000 && !stopped && System.nanoTime() < end; i++) {
        long id = ids.get(i % ids.size());
        Optional<Result> r = submit(new RenewLease(id, versions.get(id), 100, 100, 0, 0, 0));
        if (r.isEmpty()) {
          continue;
        }
        if (r.get() instanceof Result.LeaseRenewed renewed) {
          versions.merge(id, renewed.lease().version(), Math::max);
          acknowledged.incrementAndGet();
        } else {
          lost.add("renewal of " + id + " at acknowledged version " + versions.get(id) + ": " + r.get());
        }
      }
    }

    private Optional<Result> submit(Command c) {
      RequestKey key = new RequestKey(0xBEEF, 1, sequence.getAndIncrement());
      try {
        return Optional.of(cluster.submit(key, c, Duration.ofSeconds(30)));
      } catch (AssertionError | RuntimeException e) {
        if (thread == null) {
          throw e;
        }
        return Optional.empty();
      }
    }

    /** Waits until {@code n} more renewals have been acknowledged. */
    void awaitMore(long n) {
      long target = acknowledged.get() + n;
      Waits.upTo(WAIT).every(Duration.ofMillis(50)).until(
          n + " more acknowledged renewals", acknowledged::get, a -> a >= target);
    }

    void stop() throws InterruptedException {
      stopped = true;
      if (thread != null) {
        thread.join(TimeUnit.SECONDS.toMillis(60));
      }
    }
  }
}
