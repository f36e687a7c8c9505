package dev.ration.client.limiter;

import dev.ration.client.protocol.Request;
import dev.ration.client.protocol.Response;
import dev.ration.client.transport.Transport;
import java.util.concurrent.CompletableFuture;

/**
 * The three lease calls a {@link RateLimiter} makes, as an interface so the limiter can be
 * driven without a network: {@link #of(Transport)} in production, a scripted fake in tests, a
 * simulated network in the simulation. Futures complete with the ledger's answer (domain
 * outcomes are values in the reply) or fail with a {@link dev.ration.client.transport.CallFailure}.
 */
public interface LeaseTransport {
  CompletableFuture<Response.LeaseReply> acquire(
      String tenant, String resource, String holder, long demandRatePerSecond, long demandBurst);

  CompletableFuture<Response.LeaseReply> renew(
      long leaseId, long presentedVersion, long demandRatePerSecond, long demandBurst,
      long admittedPerSecond, long rejectedPerSecond, long emergencyUsed);

  CompletableFuture<Response.ReturnReply> returnLease(long leaseId, long presentedVersion, long unusedBalance);

  /**
   * The production transport: the lease requests sent through {@code transport} (a {@code
   * RationClient}, with its retries and routing).
   */
  static LeaseTransport of(Transport transport) {
    return new LeaseTransport() {
      @Override
      public CompletableFuture<Response.LeaseReply> acquire(
          String tenant, String resource, String holder, long demandRatePerSecond, long demandBurst) {
        return transport.call(
            new Request.AcquireLease(tenant, resource, holder, demandRatePerSecond, demandBurst),
            Response.LeaseReply.class);
      }

      @Override
      public CompletableFuture<Response.LeaseReply> renew(
          long leaseId, long presentedVersion, long demandRatePerSecond, long demandBurst,
          long admittedPerSecond, long rejectedPerSecond, long emergencyUsed) {
        return transport.call(
            new Request.RenewLease(leaseId, presentedVersion, demandRatePerSecond, demandBurst,
                admittedPerSecond, rejectedPerSecond, emergencyUsed),
            Response.LeaseReply.class);
      }

      @Override
      public CompletableFuture<Response.ReturnReply> returnLease(long leaseId, long presentedVersion, long unusedBalance) {
        return transport.call(
            new Request.ReturnLease(leaseId, presentedVersion, unusedBalance), Response.ReturnReply.class);
      }
    };
  }
}
