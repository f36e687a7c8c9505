package dev.ration.client.limiter;

import dev.ration.client.RationClient;
import dev.ration.client.protocol.Response;
import java.util.concurrent.CompletableFuture;

/**
 * The three lease calls a {@link RateLimiter} makes, as an interface so the limiter can be
 * driven without a network: {@link #of(RationClient)} in production, a scripted fake in tests, a
 * simulated network in the simulation. Futures complete with the ledger's answer (domain
 * outcomes are values in the reply) or fail with a {@code RationException}.
 */
public interface LeaseTransport {
  CompletableFuture<Response.LeaseReply> acquire(
      String tenant, String resource, String holder, long demandRatePerSecond, long demandBurst);

  CompletableFuture<Response.LeaseReply> renew(
      long leaseId, long presentedVersion, long demandRatePerSecond, long demandBurst,
      long admittedPerSecond, long rejectedPerSecond, long emergencyUsed);

  CompletableFuture<Response.ReturnReply> returnLease(long leaseId, long presentedVersion, long unusedBalance);

  /** The production transport: the client's own calls, with its retries and routing. */
  static LeaseTransport of(RationClient client) {
    return new LeaseTransport() {
      @Override
      public CompletableFuture<Response.LeaseReply> acquire(
          String tenant, String resource, String holder, long demandRatePerSecond, long demandBurst) {
        return client.acquireLeaseAsync(tenant, resource, holder, demandRatePerSecond, demandBurst);
      }

      @Override
      public CompletableFuture<Response.LeaseReply> renew(
          long leaseId, long presentedVersion, long demandRatePerSecond, long demandBurst,
          long admittedPerSecond, long rejectedPerSecond, long emergencyUsed) {
        return client.renewLeaseAsync(leaseId, presentedVersion, demandRatePerSecond, demandBurst,
            admittedPerSecond, rejectedPerSecond, emergencyUsed);
      }

      @Override
      public CompletableFuture<Response.ReturnReply> returnLease(long leaseId, long presentedVersion, long unusedBalance) {
        return client.returnLeaseAsync(leaseId, presentedVersion, unusedBalance);
      }
    };
  }
}
