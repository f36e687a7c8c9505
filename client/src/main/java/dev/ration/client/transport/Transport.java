package dev.ration.client.transport;

import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import java.util.concurrent.CompletableFuture;

/**
 * One request sent to the cluster and its reply: what the limiter, the quota client and the TTL
 * entries need from a connection. {@code RationClient} implements it with its leader following,
 * deadlines and retries (a retried mutation keeps its request id, so the coordinator answers a
 * resend with its first result); tests and the simulation can supply their own.
 *
 * <p>It sits below the feature packages so they depend on it and not on {@code RationClient},
 * which depends on them to hand them out: the dependencies between the client's packages then
 * point one way.
 *
 * <p>Implementations are thread-safe. A returned future completes with the reply, never with a
 * {@link Response.Error}; it fails with an exception that {@link CallFailure#of} describes.
 */
public interface Transport {

  /** Sends {@code request} under a fresh request id with the default deadline. */
  CompletableFuture<Response> call(Request request);

  /**
   * A request id of this transport's client never handed out before. A caller that will retry a
   * mutation itself (the limiter's renewals) takes one and sends every attempt under it, so the
   * coordinator applies the mutation at most once and answers a resend with its first result.
   */
  long nextRequestId();

  /**
   * As {@link #call(Request, Class)} under {@code requestId} (from {@link #nextRequestId()}).
   * A resend under the same id must carry the same request: the coordinator refuses a different
   * request under an id it has answered.
   */
  <T extends Response> CompletableFuture<T> call(long requestId, Request request, Class<T> replyType);

  /**
   * As {@link #call(Request)}, and fails (with a {@link CallFailure}) if the reply is not a
   * {@code replyType}.
   */
  <T extends Response> CompletableFuture<T> call(Request request, Class<T> replyType);
}
