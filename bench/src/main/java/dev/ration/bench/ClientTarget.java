package dev.ration.bench;

import dev.ration.protocol.Request;
import dev.ration.client.transport.RawClient;
import dev.ration.client.transport.RenewalCoalescer;
import dev.ration.client.RationClient;
import dev.ration.protocol.Response;
import java.util.concurrent.CompletableFuture;

/**
 * {@link LeaseTarget} over one {@link RationClient} (one connection, one event-loop thread).
 * Every lease demands a rate of 1 and a burst of 1 and renewals report the same demand, so a
 * renewal neither grows nor shrinks its lease: every renewal is the cheap, valid case.
 *
 * <p>Renewals go through {@code renewals}: the client's transport itself (each renewal its own
 * RENEW_LEASE frame) or a {@link RenewalCoalescer} over it, the path
 * {@code RationClient.renewLease} and the limiters take (renewals of concurrent callers share
 * frames), so the two can be measured A/B on one build.
 */
public record ClientTarget(RationClient client, String tenant, RawClient renewals) implements LeaseTarget {
  /**
   * A target whose renewals are coalesced as the client's own renewals are, or sent one by one.
   *
   * @param client the client
   * @param tenant the bench tenant
   * @param framesInFlight renewal frames outstanding before renewals wait to share the next;
   *     0 sends each renewal in its own RENEW_LEASE frame
   * @return the target
   */
  public static ClientTarget of(RationClient client, String tenant, int framesInFlight) {
    RawClient raw = RawClient.of(client);
    return new ClientTarget(client, tenant, framesInFlight > 0
        ? new RenewalCoalescer(raw, framesInFlight, java.time.Duration.ofMinutes(10), System::nanoTime) : raw);
  }

  static final long DEMAND_RATE_PER_SECOND = 1;
  static final long DEMAND_BURST = 1;

  @Override
  public CompletableFuture<Response.LeaseReply> acquire(String resource, String holder) {
    return RawClient.of(client).call(new Request.AcquireLease(tenant, resource, holder, DEMAND_RATE_PER_SECOND, DEMAND_BURST),
        Response.LeaseReply.class);
  }

  @Override
  public CompletableFuture<Response.LeaseReply> renew(long leaseId, long presentedVersion) {
    return renewals.call(renewals.nextRequestId(), new Request.RenewLease(leaseId, presentedVersion, DEMAND_RATE_PER_SECOND, DEMAND_BURST, 0, 0, 0),
        Response.LeaseReply.class);
  }
}
