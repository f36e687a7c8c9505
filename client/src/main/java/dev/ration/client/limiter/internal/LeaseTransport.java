package dev.ration.client.limiter.internal;

import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.client.transport.Transport;
import java.util.concurrent.CompletableFuture;

/**
 * The three lease calls a {@code RateLimiter} makes, as an interface so the limiter can be
 * driven without a network: {@link #of(Transport)} in production, a scripted fake in tests, a
 * simulated network in the simulation. Futures complete with the ledger's answer (domain
 * outcomes are values in the reply) or fail with a {@link dev.ration.client.transport.CallFailure}.
 *
 * <p>Every call carries a request id from {@link #nextRequestId()}. The limiter resends a call
 * that failed without an answer under the same id and with the same fields, so a renewal whose
 * answer was lost is applied once (its demand and emergency report counted once), not once per
 * attempt.
 */
public interface LeaseTransport {
  /** A request id never handed out before by this transport. */
  long nextRequestId();

  /** Asks for a lease on (tenant, resource) for {@code holder}, with the holder's demand. */
  CompletableFuture<Response.LeaseReply> acquire(long requestId,
      String tenant, String resource, String holder, long demandRatePerSecond, long demandBurst);

  /** Renews a lease presenting its current version, with the holder's demand report. */
  CompletableFuture<Response.LeaseReply> renew(long requestId,
      long leaseId, long presentedVersion, long demandRatePerSecond, long demandBurst,
      long admittedPerSecond, long rejectedPerSecond, long emergencyUsed);

  /** Hands a lease back with its unused whole tokens. */
  CompletableFuture<Response.ReturnReply> returnLease(long requestId,
      long leaseId, long presentedVersion, long unusedBalance);

  /**
   * The production transport: the lease requests sent through {@code transport} (a {@code
   * RationClient}, with its retries and routing).
   */
  static LeaseTransport of(Transport transport) {
    return new LeaseTransport() {
      @Override
      public long nextRequestId() {
        return transport.nextRequestId();
      }

      @Override
      public CompletableFuture<Response.LeaseReply> acquire(long requestId,
          String tenant, String resource, String holder, long demandRatePerSecond, long demandBurst) {
        return transport.call(requestId,
            new Request.AcquireLease(tenant, resource, holder, demandRatePerSecond, demandBurst),
            Response.LeaseReply.class);
      }

      @Override
      public CompletableFuture<Response.LeaseReply> renew(long requestId,
          long leaseId, long presentedVersion, long demandRatePerSecond, long demandBurst,
          long admittedPerSecond, long rejectedPerSecond, long emergencyUsed) {
        return transport.call(requestId,
            new Request.RenewLease(leaseId, presentedVersion, demandRatePerSecond, demandBurst,
                admittedPerSecond, rejectedPerSecond, emergencyUsed),
            Response.LeaseReply.class);
      }

      @Override
      public CompletableFuture<Response.ReturnReply> returnLease(long requestId,
          long leaseId, long presentedVersion, long unusedBalance) {
        return transport.call(requestId,
            new Request.ReturnLease(leaseId, presentedVersion, unusedBalance), Response.ReturnReply.class);
      }
    };
  }
}
