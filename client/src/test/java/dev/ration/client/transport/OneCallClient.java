package dev.ration.client.transport;

import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A scripted client for tests: every way of sending ends in {@link #call(long, Request, Class)},
 * which the test writes, with request ids counted from the base given.
 */
public abstract class OneCallClient implements RawClient {
  private final AtomicLong ids;

  protected OneCallClient(long firstIdMinusOne) {
    this.ids = new AtomicLong(firstIdMinusOne);
  }

  @Override
  public abstract <T extends Response> CompletableFuture<T> call(long requestId, Request request,
      Class<T> replyType);

  @Override
  public long nextRequestId() {
    return ids.incrementAndGet();
  }

  @Override
  public CompletableFuture<Response> call(Request request) {
    return call(nextRequestId(), request, Response.class);
  }

  @Override
  public <T extends Response> CompletableFuture<T> call(Request request, Class<T> replyType) {
    return call(nextRequestId(), request, replyType);
  }

  @Override
  public CompletableFuture<Response> call(Request request, Duration deadline) {
    return call(request);
  }

  @Override
  public CompletableFuture<Response> call(long requestId, Request request, Duration deadline) {
    return call(requestId, request, Response.class);
  }

  @Override
  public CompletableFuture<Response.ClusterStatusReply> clusterStatus(String address) {
    throw new UnsupportedOperationException("not scripted");
  }
}
