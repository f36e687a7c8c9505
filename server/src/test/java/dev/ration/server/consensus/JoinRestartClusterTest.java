package dev.ration.server.consensus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.server.consensus.Membership.MembershipException;
import dev.ration.server.consensus.Membership.Reason;
import dev.ration.statemachine.CoordinatorState;
import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.result.Result;
import dev.ration.testkit.Waits;
import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import dev.ration.wire.lease.Limit;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.util.LifeCycle;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node started with {@code --join} and restarted on the Raft storage it left, on real Ratis
 * (gRPC on loopback) and RocksDB. Stopped before {@code cluster add} reached it, it comes back a
 * newcomer: no configuration, no election timer, no candidacy, the members' term untouched, and
 * it is added as usual afterwards. Once added, it comes back a voter of the four, both while its
 * log still holds the configuration entries and after it purged them behind a snapshot (then
 * only the configuration Ratis saved beside the log says it is a member).
 */
class JoinRestartClusterTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Duration CHANGE = Duration.ofSeconds(90);
  /** Several election timeouts (2-4 s here): long enough for a node with a timer to campaign. */
  private static final Duration OBSERVE = Duration.ofSeconds(12);
  private static final List<String> MEMBERS = List.of("n1", "n2", "n3");
  private static final List<String> WITH_N4 = List.of("n1", "n2", "n3", "n4");

  @TempDir Path dir;
  private InProcessCluster cluster;
  private final AtomicLong sequence = new AtomicLong(1);

  /**
   * Elections slow enough that a loaded machine does not hold one by itself while the test
   * watches the term; snapshots every 64 entries and 8 KiB segments, so a node soon purges its
   * log behind a snapshot.
   */
  private InProcessCluster newCluster() {
    cluster = new InProcessCluster(dir, 3, o -> new ConsensusOptions(
        o.nodeId(), o.groupId(), o.peers(), o.dataDir(),
        Duration.ofMillis(2000), Duration.ofMillis(4000), Duration.ofSeconds(5),
        64, 0, 8 << 10,
        o.batchMaxCommands(), 4 << 10, o.batchLinger(), o.maxEntriesInFlight(),
        o.queueCapacity(), o.tickInterval(), o.tickMaxItems(), o.stateOptions()));
    return cluster.startAll();
  }

  @AfterEach
  void tearDown() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void newcomerStoppedBeforeItWasAddedRestartsAsANewcomer() {
    newCluster();
    write(20);
    Peer n4 = cluster.newPeer("n4");
    ConsensusNode first = cluster.startJoining(n4);
    assertNewcomer(first);
    cluster.stop("n4");

    ConsensusNode leader = cluster.awaitLeader(WAIT);
    String leaderId = cluster.idOf(leader);
    long term = leader.currentTerm();
    ConsensusNode restarted = cluster.startJoining(n4);
    assertTrue(Files.isDirectory(restarted.raftDir()), "n4 restarted on its old raft storage");

    // Its file lists n1..n4; none of that may make it a voter or a candidate. Every look during
    // the watch must pass: the first that fails ends the test.
    long watchEnd = System.nanoTime() + OBSERVE.toNanos();
    Waits.upTo(OBSERVE.plusSeconds(30)).every(InProcessCluster.POLL).until(
        "the end of a " + OBSERVE + " watch on n4", () -> {
          assertNewcomer(restarted);
          for (String id : MEMBERS) {
            assertEquals(term, cluster.node(id).currentTerm(), "term on " + id);
          }
          return watchEnd - System.nanoTime();
        }, left -> left <= 0);
    assertEquals(leaderId, cluster.idOf(cluster.awaitLeader(WAIT)), "the leader");

    Membership.Change added = onLeader(m -> m.add(n4, CHANGE));
    assertEquals("n4 added as a voter", added.message());
    awaitMembersEverywhere(WITH_N4);
    write(20);
    awaitOneStateEverywhere();
    assertEquals(RaftPeerRole.FOLLOWER, restarted.division().getInfo().getCurrentRole());
  }

  @Test
  void addedNodeRestartedWithJoinRecoversAsAVoter() throws Exception {
    newCluster();
    write(20);
    Peer n4 = cluster.newPeer("n4");
    cluster.startJoining(n4);
    onLeader(m -> m.add(n4, CHANGE));
    awaitMembersEverywhere(WITH_N4);

    // The configuration entries are still in n4's log.
    ConsensusNode n4Node = cluster.node("n4");
    long confIndex = n4Node.division().getRaftConf().getLogEntryIndex();
    assertTrue(n4Node.division().getRaftLog().getStartIndex() <= confIndex,
        "n4's log starts at " + n4Node.division().getRaftLog().getStartIndex()
            + ", after its configuration entry " + confIndex);
    cluster.stop("n4");
    assertVoterAfterRestart(cluster.startJoining(n4));

    // Until n4 has purged every configuration entry behind a snapshot.
    ConsensusNode again = cluster.node("n4");
    long conf = again.division().getRaftConf().getLogEntryIndex();
    for (int i = 0; i < 3_000 && again.division().getRaftLog().getStartIndex() <= conf; i++) {
      write(1);
    }
    long start = again.division().getRaftLog().getStartIndex();
    assertTrue(start > again.division().getRaftConf().getLogEntryIndex(),
        "n4's log starts at " + start + ", not after its configuration entry "
            + again.division().getRaftConf().getLogEntryIndex());
    Path groupDir = again.raftDir().resolve(again.division().getGroup().getGroupId().getUuid().toString());
    assertTrue(Files.isRegularFile(groupDir.resolve("current").resolve("raft-meta.conf")),
        "Ratis saved the configuration under " + groupDir);
    cluster.stop("n4");
    assertVoterAfterRestart(cluster.startJoining(n4));
  }

  // ---------------------------------------------------------------- helpers

  /** Not in any configuration, so Ratis started it without an election timer. */
  private static void assertNewcomer(ConsensusNode node) {
    assertEquals(List.of(), node.members().all(), "n4's configuration");
    assertTrue(node.configMismatch().contains("not in the replicated configuration"),
        node.configMismatch());
    DivisionInfo info = node.division().getInfo();
    assertEquals(RaftPeerRole.FOLLOWER, info.getCurrentRole(), "n4's role");
    assertEquals(LifeCycle.State.STARTING, info.getLifeCycleState(), "n4's life cycle");
    assertEquals(0, info.getCurrentTerm(), "n4's term");
  }

  /** A voter of n1..n4 as soon as it is up, and it applies what the cluster commits afterwards. */
  private void assertVoterAfterRestart(ConsensusNode node) {
    assertEquals(WITH_N4, node.members().voters().stream().map(Peer::id).toList(),
        "n4's voters right after the restart");
    assertEquals(List.of(), node.members().listeners());
    DivisionInfo info = node.division().getInfo();
    assertEquals(LifeCycle.State.RUNNING, info.getLifeCycleState(), "n4's life cycle");
    assertFalse(info.isListener(), "n4 is a listener");
    assertEquals("", node.configMismatch());
    write(20);
    awaitMembersEverywhere(WITH_N4);
    awaitOneStateEverywhere();
  }

  /** {@code n} writes through the leader, each acknowledged before the next. */
  private void write(int n) {
    for (int i = 0; i < n; i++) {
      long seq = sequence.getAndIncrement();
      Result r = cluster.submit(new RequestKey(0xF00D, 1, seq),
          new SetLimit(new Limit("tenant", "r" + (seq % 50), 100 + seq, 100, Mode.HARD, 60_000,
              1_000, 0, Policy.FREE_CAPACITY, 0)),
          WAIT);
      assertTrue(r instanceof Result.LimitSet, "write " + seq + ": " + r);
    }
  }

  @FunctionalInterface
  interface MembershipCall {
    Membership.Change call(Membership m) throws MembershipException;
  }

  /** Runs a change on the current leader, asking again after NOT_LEADER or IN_PROGRESS. */
  private Membership.Change onLeader(MembershipCall call) {
    return Waits.upTo(CHANGE).every(Duration.ofMillis(200)).retrying("a leader taking the change",
        e -> e instanceof MembershipException me
            && (me.reason() == Reason.NOT_LEADER || me.reason() == Reason.IN_PROGRESS),
        () -> call.call(cluster.awaitLeader(WAIT).membership()));
  }

  private void awaitMembersEverywhere(List<String> voters) {
    Waits.upTo(WAIT).every(Duration.ofMillis(100)).untilAsserted(
        "every node's configuration has voters " + voters, () -> {
          for (String id : voters) {
            ConsensusNode.Members m = cluster.node(id).members();
            assertEquals(voters, m.voters().stream().map(Peer::id).toList(), "voters on " + id);
            assertEquals(List.of(), m.listeners(), "listeners on " + id);
          }
        });
  }

  /** Every running node reaches the same applied index with the same state. */
  private void awaitOneStateEverywhere() {
    Waits.upTo(WAIT).every(InProcessCluster.POLL).untilAsserted(
        "all nodes on one applied index and state", () -> {
          List<ConsensusNode> nodes = cluster.runningNodes();
          Map<String, Long> applied = nodes.stream()
              .collect(Collectors.toMap(cluster::idOf, JoinRestartClusterTest::applied));
          assertEquals(1, applied.values().stream().distinct().count(), "applied " + applied);
          for (ConsensusNode n : nodes) {
            assertArrayEquals(canonical(nodes.get(0)), canonical(n), "state of " + cluster.idOf(n));
          }
        });
  }

  private static long applied(ConsensusNode node) {
    return node.stateMachine().tryWithState(CoordinatorState::appliedIndex).orElse(-1L);
  }

  private static byte[] canonical(ConsensusNode node) {
    return node.stateMachine().tryWithState(CoordinatorState::canonicalState).orElse(new byte[0]);
  }
}
