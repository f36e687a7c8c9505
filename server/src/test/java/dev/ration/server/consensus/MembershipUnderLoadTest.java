package dev.ration.server.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.server.consensus.Membership.MembershipException;
import dev.ration.server.consensus.Membership.Reason;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.LeaseCommand.AcquireLease;
import dev.ration.statemachine.command.LeaseCommand.RenewLease;
import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.result.Result;
import dev.ration.testkit.Waits;
import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.lease.Limit;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.server.DivisionInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Membership changes one after another while sixteen renewals are always in flight, on real
 * Ratis nodes (gRPC on loopback, RocksDB): a fourth node added and removed, and a voter replaced
 * by a node on an empty disk, and a node added while the leadership moves, twice over. A change counts as done only when the call that made
 * it returned; from then on every member must be running Raft, a voter of the configuration as
 * it sees it itself, within a few entries of the leader's commit index, and still so after
 * several election timeouts (a newcomer that was added but shut its Raft down would be alive as
 * a process, and a dead voter besides).
 */
class MembershipUnderLoadTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Duration CHANGE = Duration.ofSeconds(60);
  /** Longer than the election timeout (1-2 s here): a newcomer with a timer would have fired it. */
  private static final Duration OBSERVE = Duration.ofSeconds(5);
  private static final int IN_FLIGHT = 16;

  @TempDir Path dir;
  private InProcessCluster cluster;
  private Load load;

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
  void addRemoveAndReplaceRepeatedlyUnderRenewalLoad() throws Exception {
    // Snapshots every 2,000 entries with the log purged behind them: a newcomer on an empty disk
    // catches up by snapshot as well as by entries. (Every 200, at this load's several thousand
    // entries a second, the snapshot a newcomer was installing was replaced and purged within
    // tens of milliseconds, again and again, and the add did not finish within a minute.)
    cluster = new InProcessCluster(dir, 3, o -> new ConsensusOptions(
        o.nodeId(), o.groupId(), o.peers(), o.dataDir(),
        Duration.ofMillis(1000), Duration.ofMillis(2000), Duration.ofSeconds(5),
        2_000, 0, o.segmentSizeBytes(),
        o.batchMaxCommands(), o.batchMaxBytes(), o.batchLinger(), o.maxEntriesInFlight(),
        o.queueCapacity(), o.tickInterval(), o.tickMaxItems(), o.stateOptions()));
    cluster.startAll();
    load = new Load(cluster);
    load.start();
    load.awaitMore(200);

    List<String> voters = new ArrayList<>(List.of("n1", "n2", "n3"));
    int next = 4;
    int changes = 0;
    for (int round = 0; round < 2; round++) {
      // Add a fourth node, then remove it again.
      Peer added = cluster.newPeer("n" + next++);
      cluster.startJoining(added);
      Membership.Change add = onLeader(m -> m.add(added, CHANGE));
      assertTrue(add.voters().stream().anyMatch(p -> p.id().equals(added.id())), add.toString());
      voters.add(added.id());
      assertSettled(voters, "after adding " + added.id());
      changes++;
      load.awaitMore(100);

      onLeader(m -> m.remove(added.id(), CHANGE));
      voters.remove(added.id());
      cluster.stop(added.id());
      cluster.wipe(added.id());
      assertSettled(voters, "after removing " + added.id());
      changes++;
      load.awaitMore(100);

      // A follower's disk dies; a node on an empty disk takes its place.
      String leader = cluster.idOf(cluster.awaitLeader(WAIT));
      String failed = voters.stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();
      cluster.stop(failed);
      cluster.wipe(failed);
      Peer replacement = cluster.newPeer("n" + next++);
      cluster.startJoining(replacement);
      onLeader(m -> m.replace(failed, replacement, CHANGE));
      voters.set(voters.indexOf(failed), replacement.id());
      assertSettled(voters, "after replacing " + failed + " by " + replacement.id());
      changes++;
      load.awaitMore(100);

      // An add while the leadership moves (the operator repeats it on the new leader), then
      // its removal.
      Peer moving = cluster.newPeer("n" + next++);
      cluster.startJoining(moving);
      ConsensusNode before = cluster.awaitLeader(WAIT);
      String beforeId = cluster.idOf(before);
      String target = voters.stream().filter(id -> !id.equals(beforeId)).findFirst().orElseThrow();
      Thread mover = new Thread(() -> {
        try {
          Thread.sleep(300);
          before.transferLeadershipTo(target, Duration.ofSeconds(10));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "leadership-mover");
      mover.start();
      onLeader(m -> m.add(moving, CHANGE), true);
      mover.join(TimeUnit.SECONDS.toMillis(30));
      voters.add(moving.id());
      assertSettled(voters, "after adding " + moving.id() + " while the leadership moved");
      changes++;
      onLeader(m -> m.remove(moving.id(), CHANGE));
      voters.remove(moving.id());
      cluster.stop(moving.id());
      cluster.wipe(moving.id());
      assertSettled(voters, "after removing " + moving.id());
      changes++;
      load.awaitMore(100);
    }
    assertEquals(10, changes);
    load.stop();
    assertEquals(List.of(), load.lost, "acknowledged renewals lost");
    assertTrue(load.acknowledged.get() > 500, "too little load: " + load.acknowledged.get());
    assertEquals(List.of(), cluster.fatalErrors, "invariant violations (fail-stop)");
  }

  /**
   * Every expected voter is healthy right away (the change already returned), and still is after
   * {@link #OBSERVE}. The only wait is for the applied index, which moves with the load.
   */
  private void assertSettled(List<String> expected, String when) throws InterruptedException {
    List<String> sorted = expected.stream().sorted().toList();
    assertMembersNow(sorted, when);
    Thread.sleep(OBSERVE.toMillis());
    assertMembersNow(sorted, when + " and " + OBSERVE.toSeconds() + " s more");
  }

  private void assertMembersNow(List<String> sorted, String when) {
    Waits.upTo(Duration.ofSeconds(10)).every(Duration.ofMillis(100)).untilAsserted(
        "every member alive, a voter, caught up " + when, () -> {
          ConsensusNode leader = cluster.awaitLeader(WAIT);
          long commit = leader.division().getRaftLog().getLastCommittedIndex();
          for (String id : sorted) {
            ConsensusNode n = cluster.node(id);
            DivisionInfo info = n.division().getInfo();
            assertTrue(info.isAlive(), id + "'s Raft server is not running " + when
                + " (role " + info.getCurrentRole() + ")");
            String role = info.getCurrentRole().name();
            assertTrue(role.equals("LEADER") || role.equals("FOLLOWER"), id + " is " + role + " " + when);
            ConsensusNode.Members m = n.members();
            assertEquals(sorted, m.voters().stream().map(Peer::id).toList(), "voters as " + id + " sees them " + when);
            assertEquals(List.of(), m.listeners(), "listeners as " + id + " sees them " + when);
            long applied = info.getLastAppliedIndex();
            assertTrue(applied + Membership.CAUGHT_UP_GAP >= commit, id + " applied " + applied
                + " but the leader committed " + commit + " " + when);
          }
        });
  }

  @FunctionalInterface
  interface MembershipCall {
    Membership.Change call(Membership m) throws MembershipException;
  }

  /** Runs a change on the current leader, asking again after NOT_LEADER or IN_PROGRESS. */
  private Membership.Change onLeader(MembershipCall call) {
    return onLeader(call, false);
  }

  /**
   * As above; with {@code repeatFailed} also after FAILED and TIMEOUT, as an operator repeats an
   * add whose leader stepped down half way.
   */
  private Membership.Change onLeader(MembershipCall call, boolean repeatFailed) {
    return Waits.upTo(CHANGE).every(Duration.ofMillis(200)).retrying("a leader making the change",
        e -> e instanceof MembershipException m
            && (m.reason() == Reason.NOT_LEADER || m.reason() == Reason.IN_PROGRESS
                || repeatFailed && (m.reason() == Reason.FAILED || m.reason() == Reason.TIMEOUT)),
        () -> call.call(cluster.awaitLeader(WAIT).membership()));
  }

  /**
   * {@link #IN_FLIGHT} threads, each renewing its own lease in a loop (bounded: 200,000 renewals
   * each or 4 minutes; the time bound is the one that ends it), so that many renewals are always
   * in flight. A renewal refused as if its
   * acknowledged version were gone is a lost write; one without an answer is skipped.
   */
  static final class Load {
    private final InProcessCluster cluster;
    private final AtomicLong sequence = new AtomicLong(1);
    final AtomicLong acknowledged = new AtomicLong();
    final List<String> lost = Collections.synchronizedList(new ArrayList<>());
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopped;

    Load(InProcessCluster cluster) {
      this.cluster = cluster;
    }

    void start() {
      submit(new SetLimit(new Limit("tenant", "api", 100_000, 100_000, Mode.HARD, 60_000, 1_000, 0,
          Policy.FREE_CAPACITY, 0)), true);
      for (int i = 0; i < IN_FLIGHT; i++) {
        Result r = submit(new AcquireLease("tenant", "api", "h" + i, 100, 100), true).orElseThrow();
        LeaseView lease = ((Result.LeaseGranted) r).lease();
        Thread t = new Thread(() -> run(lease.leaseId(), lease.version()), "renewal-load-" + i);
        t.setDaemon(true);
        threads.add(t);
      }
      threads.forEach(Thread::start);
    }

    private void run(long leaseId, long firstVersion) {
      long version = firstVersion;
      long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
      for (int i = 0; i < 200_000 && !stopped && System.nanoTime() < end; i++) {
        var r = submit(new RenewLease(leaseId, version, 100, 100, 0, 0, 0), false);
        if (r.isEmpty()) {
          continue;
        }
        if (r.get() instanceof Result.LeaseRenewed renewed) {
          version = Math.max(version, renewed.lease().version());
          acknowledged.incrementAndGet();
        } else {
          lost.add("renewal of " + leaseId + " at acknowledged version " + version + ": " + r.get());
        }
      }
    }

    private java.util.Optional<Result> submit(Command c, boolean mustSucceed) {
      RequestKey key = new RequestKey(0xBEEF, 1, sequence.getAndIncrement());
      try {
        return java.util.Optional.of(cluster.submit(key, c, Duration.ofSeconds(20)));
      } catch (AssertionError | RuntimeException e) {
        if (mustSucceed) {
          throw e;
        }
        return java.util.Optional.empty();
      }
    }

    void awaitMore(long n) {
      assertTrue(threads.stream().anyMatch(Thread::isAlive),
          "the renewal load ended (its bounds were reached) before the test did");
      long target = acknowledged.get() + n;
      Waits.upTo(WAIT).every(Duration.ofMillis(50)).until(
          n + " more acknowledged renewals", acknowledged::get, a -> a >= target);
    }

    void stop() throws InterruptedException {
      stopped = true;
      for (Thread t : threads) {
        t.join(TimeUnit.SECONDS.toMillis(60));
      }
    }
  }
}
