package dev.ration.server.endpoint;

import dev.ration.client.RenewalReport;
import dev.ration.client.LeaseResult;
import dev.ration.client.SetLimitResult;
import dev.ration.client.transport.RawClient;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.LimitSpec;
import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.RationFailedException;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.server.RationNode;
import dev.ration.server.config.ServerConfig;
import dev.ration.wire.Outcome;
import dev.ration.client.limiter.LeaseInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * RENEW_LEASES through the Java client, the TCP endpoint and a real single-node cluster: every
 * renewal answered on its own and in order, a bad renewal refusing the frame definitely.
 */
class RenewLeasesNodeTest {
  @Test
  void renewalsOfManyLeasesInOneFrame(@TempDir Path dir) throws Exception {
    ServerConfig c = NameBoundNodeTest.config(dir, 128);
    RationNode node = RationNode.start(c);
    try (RationClient client = new RationClient(RationClientOptions.builder()
        .addresses(List.of(c.clientAddress())).requestDeadline(Duration.ofSeconds(20)).build())) {
      List<LeaseInfo> leases = new ArrayList<>();
      for (int t = 0; t < 20; t++) {
        String tenant = "tenant-" + t;
        // Leases of 10 minutes: the first is renewed only after the other 38 writes, however
        // long those take on a loaded machine.
        SetLimitResult set = client.setLimit(LimitSpec.builder(tenant, "api")
            .ratePerSecond(100).burst(50).leaseDuration(Duration.ofMinutes(10)).build());
        assertEquals(Outcome.SUCCESS, set.outcome(), set.message());
        LeaseResult lease = client.acquireLease(tenant, "api", "eu", 50, 10);
        assertEquals(Outcome.SUCCESS, lease.outcome(), lease.message());
        leases.add(lease.lease().orElseThrow());
      }
      List<RenewalReport> renewals = new ArrayList<>();
      for (LeaseInfo l : leases) {
        // Lease 7 presents a version it never had: only its renewal fails.
        long presented = l.leaseId() == leases.get(7).leaseId() ? l.version() + 9 : l.version();
        renewals.add(RenewalReport.builder(l.leaseId(), presented).demand(50, 10).admittedPerSecond(3).build());
      }
      renewals.add(RenewalReport.builder(1_000_000, 1).demand(1, 1).build());

      List<LeaseResult> replies = client.renewLeases(renewals);
      assertEquals(renewals.size(), replies.size(), "one answer per renewal");
      for (int i = 0; i < leases.size(); i++) {
        LeaseResult r = replies.get(i);
        if (i == 7) {
          assertEquals(Outcome.VERSION_MISMATCH, r.outcome(), r.message());
          assertTrue(r.lease().isEmpty());
          assertEquals(leases.get(7).version(), r.currentVersion());
        } else {
          assertEquals(Outcome.SUCCESS, r.outcome(), r.message());
          assertEquals(leases.get(i).leaseId(), r.lease().orElseThrow().leaseId(), "answers keep the order");
          assertTrue(r.lease().orElseThrow().expiresAt().compareTo(leases.get(i).expiresAt()) >= 0);
        }
      }
      assertEquals(Outcome.LEASE_UNKNOWN, replies.get(leases.size()).outcome());

      // A malformed renewal (the typed report refuses a negative demand, so it goes as a wire
      // record) refuses the whole frame, definitely, naming its place.
      List<Request.RenewLease> bad = List.of(
          new Request.RenewLease(leases.get(0).leaseId(), leases.get(0).version(), 50, 10, 3, 0, 0),
          new Request.RenewLease(leases.get(1).leaseId(), 1, -5, 0, 0, 0, 0));
      java.util.concurrent.CompletionException failed = assertThrows(java.util.concurrent.CompletionException.class,
          () -> RawClient.of(client).call(new Request.RenewLeases(bad), Response.RenewalsReply.class).join());
      RationFailedException e = org.junit.jupiter.api.Assertions.assertInstanceOf(RationFailedException.class, failed.getCause());
      assertTrue(e.getMessage().contains("renewal 1"), e.getMessage());
    } finally {
      node.shutdown();
      node.awaitTermination(Duration.ofSeconds(30));
    }
  }
}
