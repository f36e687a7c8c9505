package dev.ration.server.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.LeaseResult;
import dev.ration.client.LimitSpec;
import dev.ration.client.RationClient;
import dev.ration.client.RationException;
import dev.ration.client.RationFailedException;
import dev.ration.client.limiter.LeaseInfo;
import dev.ration.client.transport.RawClient;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.server.RationNode;
import dev.ration.server.consensus.Peer;
import dev.ration.testkit.Waits;
import dev.ration.wire.ErrorCode;
import dev.ration.wire.Outcome;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients cut off from the leader only, on a secure three-node cluster (real TLS on every port,
 * authorization): the leader's client port stops taking connections, Raft goes on. A client that
 * can reach only a follower is served: the follower forwards its writes to the leader over the
 * Raft port, and authorization holds on that path (another tenant's forwarded return is refused
 * and frees nothing).
 */
class FollowerForwardingTlsTest {
  private static final Duration DEADLINE = Duration.ofSeconds(30);

  @TempDir Path dir;
  private final List<RationNode> nodes = new ArrayList<>();

  @AfterEach
  void stop() {
    nodes.forEach(RationNode::shutdown);
  }

  @Test
  void writesThroughAFollowerWhileTheLeadersClientPortIsClosed() throws Exception {
    Path certs = dir.resolve("certs");
    List<Peer> peers = TenantIsolationClusterTest.startSecureCluster(dir, nodes);
    RationNode leader = Waits.upTo(Duration.ofSeconds(90)).every(Duration.ofMillis(200)).until(
        "a leader", () -> nodes.stream()
            .filter(n -> "LEADER".equalsIgnoreCase(n.consensus().status().role())).findFirst()
            .orElse(null), n -> n != null);
    List<String> all = peers.stream().map(Peer::clientAddress).toList();
    try (RationClient admin = TenantIsolationClusterTest.client(all, certs, "admin")) {
      for (String[] g : new String[][] {{"svc-a", "service", "a"}, {"svc-b", "service", "b"}}) {
        Response.SecurityChangeReply r = (Response.SecurityChangeReply) RawClient.of(admin)
            .call(new Request.GrantRole(g[0], g[1], g[2]), DEADLINE).join();
        assertEquals(Outcome.SUCCESS, r.outcome(), r.toString());
      }
      assertEquals(Outcome.SUCCESS, admin.setLimit(LimitSpec.builder("b", "api")
          .ratePerSecond(1_000).burst(1_000).leaseDuration(Duration.ofMinutes(10)).build()).outcome());
    }
    // Wait until every node has applied the grants (a follower judges with its own copy).
    RationNode follower = nodes.stream().filter(n -> n != leader).findFirst().orElseThrow();
    String leaderId = leader.consensus().status().nodeId();
    Waits.upTo(Duration.ofSeconds(30)).every(Duration.ofMillis(100)).until("the follower caught up",
        () -> follower.consensus().status().appliedIndex(),
        applied -> applied >= leader.consensus().status().commitIndex());
    leader.endpoint().stopAccepting();
    String followerAddress = peers.stream()
        .filter(p -> p.id().equals(follower.consensus().status().nodeId())).findFirst().orElseThrow()
        .clientAddress();
    long before = follower.consensus().forwardsSent();
    try (RationClient b = TenantIsolationClusterTest.client(List.of(followerAddress), certs, "svc-b");
        RationClient a = TenantIsolationClusterTest.client(List.of(followerAddress), certs, "svc-a")) {
      LeaseResult acquired = b.acquireLease("b", "api", "via-follower", 10, 10);
      assertEquals(Outcome.SUCCESS, acquired.outcome(), acquired.toString());
      assertTrue(follower.consensus().forwardsSent() > before,
          "answered by the follower, through leader " + leaderId);
      LeaseInfo lease = acquired.lease().orElseThrow();
      RationException refused = org.junit.jupiter.api.Assertions.assertThrows(RationException.class,
          () -> a.returnLease(lease.leaseId(), lease.version(), 0));
      assertEquals(ErrorCode.PERMISSION_DENIED, refused.code(), refused.toString());
      assertInstanceOf(RationFailedException.class, refused);
      // Reads need the leader (not forwarded); the holder's own renewal shows the lease lives.
      LeaseResult renewed = b.renewLease(dev.ration.client.RenewalReport.builder(lease.leaseId(),
          lease.version()).demand(10, 10).build());
      assertEquals(Outcome.SUCCESS, renewed.outcome(), "the lease is still b's: " + renewed);
    }
  }
}
