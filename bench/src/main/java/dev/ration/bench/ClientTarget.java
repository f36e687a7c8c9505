package dev.ration.bench;

import dev.ration.protocol.Request;
import dev.ration.client.transport.RawClient;
import dev.ration.client.RationClient;
import dev.ration.protocol.Response;
import java.util.concurrent.CompletableFuture;

/**
 * {@link LeaseTarget} over one {@link RationClient} (one connection, one event-loop thread).
 * Every lease demands a rate of 1 and a burst of 1 and renewals report the same demand, so a
 * renewal neither grows nor shrinks its lease: every renewal is the cheap, valid case.
 */
public record ClientTarget(RationClient client, String tenant) implements LeaseTarget {
  static final long DEMAND_RATE_PER_SECOND = 1;
  static final long DEMAND_BURST = 1;

  @Override
  public CompletableFuture<Response.LeaseReply> acquire(String resource, String holder) {
    return RawClient.of(client).call(new Request.AcquireLease(tenant, resource, holder, DEMAND_RATE_PER_SECOND, DEMAND_BURST),
        Response.LeaseReply.class);
  }

  @Override
  public CompletableFuture<Response.LeaseReply> renew(long leaseId, long presentedVersion) {
    return RawClient.of(client).call(new Request.RenewLease(leaseId, presentedVersion, DEMAND_RATE_PER_SECOND, DEMAND_BURST, 0, 0, 0),
        Response.LeaseReply.class);
  }
}
