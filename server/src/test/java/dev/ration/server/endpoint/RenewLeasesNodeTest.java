package dev.ration.server.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.LimitSpec;
import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.RationFailedException;
import dev.ration.client.protocol.Request;
import dev.ration.client.protocol.Response;
import dev.ration.server.RationNode;
import dev.ration.server.config.ServerConfig;
import dev.ration.wire.Outcome;
import dev.ration.wire.lease.LeaseView;
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
      List<LeaseView> leases = new ArrayList<>();
      for (int t = 0; t < 20; t++) {
        String tenant = "tenant-" + t;
        Response.SetLimitReply set = client.setLimit(LimitSpec.builder(tenant, "api")
            .ratePerSecond(100).burst(50).build());
        assertEquals(Outcome.SUCCESS, set.outcome(), set.message());
        Response.LeaseReply lease = client.acquireLease(tenant, "api", "eu", 50, 10);
        assertEquals(Outcome.SUCCESS, lease.outcome(), lease.message());
        leases.add(lease.lease());
      }
      List<Request.RenewLease> renewals = new ArrayList<>();
      for (LeaseView l : leases) {
        // Lease 7 presents a version it never had: only its renewal fails.
        long presented = l.leaseId() == leases.get(7).leaseId() ? l.version() + 9 : l.version();
        renewals.add(new Request.RenewLease(l.leaseId(), presented, 50, 10, 3, 0, 0));
      }
      renewals.add(new Request.RenewLease(1_000_000, 1, 1, 1, 0, 0, 0));

      Response.RenewalsReply reply = client.renewLeases(renewals);
      assertEquals(Outcome.SUCCESS, reply.outcome(), reply.message());
      assertEquals(renewals.size(), reply.replies().size(), "one answer per renewal");
      for (int i = 0; i < leases.size(); i++) {
        Response.LeaseReply r = reply.replies().get(i);
        if (i == 7) {
          assertEquals(Outcome.VERSION_MISMATCH, r.outcome(), r.message());
          assertNull(r.lease());
          assertEquals(leases.get(7).version(), r.currentVersion());
        } else {
          assertEquals(Outcome.SUCCESS, r.outcome(), r.message());
          assertEquals(leases.get(i).leaseId(), r.lease().leaseId(), "answers keep the order");
          assertTrue(r.lease().expiresAtMillis() >= leases.get(i).expiresAtMillis());
        }
      }
      assertEquals(Outcome.LEASE_UNKNOWN, reply.replies().get(leases.size()).outcome());

      // A malformed renewal refuses the whole frame, definitely, naming its place.
      List<Request.RenewLease> bad = List.of(renewals.get(0),
          new Request.RenewLease(leases.get(1).leaseId(), 1, -5, 0, 0, 0, 0));
      RationFailedException e = assertThrows(RationFailedException.class,
          () -> client.renewLeases(bad));
      assertTrue(e.getMessage().contains("renewal 1"), e.getMessage());
    } finally {
      node.shutdown();
      node.awaitTermination(Duration.ofSeconds(30));
    }
  }
}
