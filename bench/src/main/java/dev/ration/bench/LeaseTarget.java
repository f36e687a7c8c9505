package dev.ration.bench;

import dev.ration.protocol.Response;
import java.util.concurrent.CompletableFuture;

/**
 * The two calls the load generator makes, so the closed loop can be tested without a cluster.
 * A future fails with a {@link dev.ration.client.RationException} when the client gave up.
 */
public interface LeaseTarget {
  CompletableFuture<Response.LeaseReply> acquire(String resource, String holder);

  CompletableFuture<Response.LeaseReply> renew(long leaseId, long presentedVersion);
}
