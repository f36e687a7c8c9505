package dev.ration.server.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.command.LeaseCommand.AcquireLease;
import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import dev.ration.wire.lease.Limit;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower that is asked to apply a command hands it to the leader with the client's request
 * key (real Ratis nodes, gRPC on loopback, RocksDB): the command is applied once, the follower
 * answers with the leader's result, and the same key sent to the leader afterwards, or through
 * the other follower, gets that same result instead of a second application.
 */
class FollowerForwardingTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;
  private InProcessCluster cluster;

  @AfterEach
  void tearDown() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aFollowerForwardsWritesAndTheRequestKeyHoldsEndToEnd() throws Exception {
    cluster = new InProcessCluster(dir, 3, o -> o).startAll();
    ConsensusNode leader = cluster.awaitLeader(WAIT);
    List<ConsensusNode> followers = cluster.runningNodes().stream().filter(n -> n != leader).toList();
    assertEquals(2, followers.size());

    Result set = followers.get(0).submit(new RequestKey(7, 7, 1),
        new SetLimit(new Limit("t", "api", 100, 100, Mode.HARD, 60_000, 1_000, 0,
            Policy.FREE_CAPACITY, 0)), deadline()).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertInstanceOf(Result.LimitSet.class, set, "a follower answers a write: " + set);

    RequestKey key = new RequestKey(7, 7, 2);
    AcquireLease acquire = new AcquireLease("t", "api", "holder", 10, 10);
    Result viaFollower = followers.get(0).submit(key, acquire, deadline())
        .get(WAIT.toSeconds(), TimeUnit.SECONDS);
    Result.LeaseGranted granted = assertInstanceOf(Result.LeaseGranted.class, viaFollower);
    Result viaLeader = leader.submit(key, acquire, deadline()).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    Result viaOther = followers.get(1).submit(key, acquire, deadline()).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertEquals(viaFollower, viaLeader, "the key the follower forwarded is the client's");
    assertEquals(viaFollower, viaOther);

    QueryResult leases = leader.query(new Query.ListLeases("t", "api"), false, deadline())
        .get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertEquals(1, ((QueryResult.LeaseList) leases).leases().size(), "applied once: " + leases);
    assertEquals(granted.lease().leaseId(),
        ((QueryResult.LeaseList) leases).leases().get(0).leaseId());
    assertTrue(followers.get(0).forwardsSent() >= 2, "forwarded, not proposed by the follower");
    assertTrue(leader.forwardsReceived() >= 3);
  }

  private static long deadline() {
    return System.nanoTime() + WAIT.toNanos();
  }
}
