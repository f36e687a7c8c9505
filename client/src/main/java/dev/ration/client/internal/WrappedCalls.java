package dev.ration.client.internal;

import dev.ration.client.time.MonotonicClock;
import dev.ration.client.transport.Transport;
import dev.ration.protocol.OutcomeReply;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.wire.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * Not API: the calls of a family of requests that travel inside one wrapper frame (TTL inside
 * {@code Request.Ttl}, quotas inside {@code Request.Quota}). Each call goes through the client's
 * transport (so it keeps the client's connection, deadlines and retries), has its reply taken
 * out of the wrapper and checked against the type asked for, and is reported with its outcome
 * and latency to the family's listeners. What differs between families is given once, here: how
 * a request is wrapped, how a reply is unwrapped, and how a listener hears of a call.
 *
 * @param <Q> the family's request type
 * @param <P> the family's reply type
 * @param <O> the operations the listeners count calls by
 * @param <L> the family's listener type
 */
public final class WrappedCalls<Q, P, O, L> {
  /**
   * How a listener hears of one call.
   *
   * @param <O> the operations
   * @param <L> the listener type
   */
  @FunctionalInterface
  public interface CallListener<O, L> {
    /**
     * Tells {@code listener} of one call.
     *
     * @param listener the listener
     * @param operation what the call did
     * @param outcome the reply's outcome; empty when the call failed without an answer
     * @param latency from the call to its completion, retries included
     */
    void onCall(L listener, O operation, Optional<Outcome> outcome, Duration latency);
  }

  private final Transport transport;
  private final MonotonicClock clock;
  private final Function<Q, Request> wrap;
  private final Function<Response, P> unwrap;
  private final List<L> listeners;
  private final CallListener<O, L> notify;

  /**
   * The calls of one family.
   *
   * @param transport the client's transport
   * @param clock the clock latencies are measured by
   * @param wrap the request as the frame that carries it
   * @param unwrap the family's reply inside a frame, or null when the frame is not of the family
   * @param listeners the family's listeners, read at every call (a concurrent list)
   * @param notify how a listener hears of a call
   */
  public WrappedCalls(Transport transport, MonotonicClock clock, Function<Q, Request> wrap,
      Function<Response, P> unwrap, List<L> listeners, CallListener<O, L> notify) {
    this.transport = transport;
    this.clock = clock;
    this.wrap = wrap;
    this.unwrap = unwrap;
    this.listeners = listeners;
    this.notify = notify;
  }

  /**
   * Sends {@code request} and completes with its reply, which must be a {@code type}; the
   * listeners hear of it when it completes.
   *
   * @param <T> the reply type expected
   * @param operation what the call does, for the listeners
   * @param request the request
   * @param type the reply type expected
   * @return the reply; fails with the client's {@code RationException}, or with an
   *     {@link IllegalStateException} when the reply is of another type
   */
  public <T extends P> CompletableFuture<T> call(O operation, Q request, Class<T> type) {
    long start = clock.nanoTime();
    return answer(operation, start, transport.call(wrap.apply(request)), type);
  }

  /**
   * As {@link #call(Object, Object, Class)} under {@code requestId} (from the transport's
   * {@code nextRequestId()}), for a request its caller resends as it was after a lost answer.
   *
   * @param <T> the reply type expected
   * @param operation what the call does, for the listeners
   * @param requestId the request id, the same for every resend
   * @param request the request
   * @param type the reply type expected
   * @return the reply, as {@link #call(Object, Object, Class)}
   */
  public <T extends P> CompletableFuture<T> call(O operation, long requestId, Q request,
      Class<T> type) {
    long start = clock.nanoTime();
    return answer(operation, start,
        transport.call(requestId, wrap.apply(request), Response.class), type);
  }

  private <T extends P> CompletableFuture<T> answer(O operation, long start,
      CompletableFuture<Response> sent, Class<T> type) {
    CompletableFuture<T> f = sent.thenApply(r -> {
      P reply = unwrap.apply(r);
      if (type.isInstance(reply)) {
        return type.cast(reply);
      }
      throw new IllegalStateException("expected " + type.getSimpleName() + " but got " + r);
    });
    if (listeners.isEmpty()) {
      return f;
    }
    return f.whenComplete((r, err) -> {
      Optional<Outcome> outcome = err != null ? Optional.empty()
          : r instanceof OutcomeReply o ? Optional.of(o.outcome()) : Optional.of(Outcome.SUCCESS);
      Duration latency = Duration.ofNanos(clock.nanoTime() - start);
      for (L l : listeners) {
        notify.onCall(l, operation, outcome, latency);
      }
    });
  }

  /**
   * Waits for {@code f}, throwing what it failed with as it was thrown (a {@code
   * RationException}, a refusal) rather than wrapped in a {@link CompletionException}.
   *
   * @param <T> the result type
   * @param f the future
   * @return its result
   */
  public static <T> T join(CompletableFuture<T> f) {
    try {
      return f.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw e;
    }
  }
}
