package dev.ration.client.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.protocol.QuotaResponse;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.protocol.TtlResponse;
import dev.ration.client.quota.Item;
import dev.ration.client.quota.QuotaClient;
import dev.ration.client.quota.QuotaRefusedException;
import dev.ration.client.quota.Reservation;
import dev.ration.client.quota.internal.QuotaAccess;
import dev.ration.client.time.MonotonicClock;
import dev.ration.client.transport.Transport;
import dev.ration.client.ttl.Lock;
import dev.ration.client.ttl.TtlEntries;
import dev.ration.client.ttl.internal.TtlAccess;
import dev.ration.wire.EventType;
import dev.ration.wire.Outcome;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Goal: the TTL and quota binders count what the clients did — calls by operation and outcome
 * with latency, failed calls, locks taken and lost with the highest fencing token, refused
 * reservations by reason — read back from a {@link SimpleMeterRegistry}. The clients run over a
 * scripted transport that answers each call with the next scripted reply.
 */
class ClientMetricsTest {
  private final Scripted transport = new Scripted();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @Test
  void ttlCallsLocksAndFailuresAreCounted() {
    TtlEntries ttl = TtlAccess.entries(transport);
    new TtlMetrics(ttl, Tags.of("service", "billing")).bindTo(registry);

    transport.answer(ttlWrite(Outcome.SUCCESS, 0, 5));
    ttl.put("app", "k", new byte[] {1}, Duration.ofSeconds(30));
    transport.answer(ttlWrite(Outcome.VERSION_MISMATCH, 5, 0));
    ttl.compareAndSet("app", "k", 4, new byte[] {2}, Duration.ofSeconds(30));
    transport.answer(new Response.Ttl(new TtlResponse.GetReply(false, null, 100)));
    ttl.get("app", "k");
    transport.fail(new IllegalStateException("connection lost"));
    assertThrows(RuntimeException.class, () -> ttl.put("app", "k", new byte[] {3}, Duration.ofSeconds(30)));

    transport.answer(ttlWrite(Outcome.SUCCESS, 0, 41));
    Lock first = ttl.tryLock("jobs", "w1", Duration.ofSeconds(10)).orElseThrow();
    transport.answer(ttlWrite(Outcome.SUCCESS, 0, 57));
    ttl.tryLock("other", "w2", Duration.ofSeconds(10)).orElseThrow();
    transport.answer(new Response.Ttl(new TtlResponse.DeleteReply(Outcome.SUCCESS, "", 0, 0, false)));
    assertFalse(first.release(), "the lock had lapsed");
    transport.answer(ttlWrite(Outcome.ENTRY_UNKNOWN, 0, 0));
    assertFalse(first.refresh(Duration.ofSeconds(10)));

    assertEquals(1, calls("ration.client.ttl.calls", "PUT", "SUCCESS").count());
    assertEquals(1, calls("ration.client.ttl.calls", "PUT", TtlMetrics.FAILED).count());
    assertEquals(1, calls("ration.client.ttl.calls", "COMPARE_AND_SET", "VERSION_MISMATCH").count());
    assertEquals(2, calls("ration.client.ttl.calls", "COMPARE_AND_SET", "SUCCESS").count(), "two locks taken");
    assertEquals(1, calls("ration.client.ttl.calls", "GET", "SUCCESS").count());
    assertEquals(1, calls("ration.client.ttl.calls", "DELETE", "SUCCESS").count());
    assertEquals(1, calls("ration.client.ttl.calls", "REFRESH", "ENTRY_UNKNOWN").count());
    assertTrue(calls("ration.client.ttl.calls", "PUT", "SUCCESS").totalTime(java.util.concurrent.TimeUnit.NANOSECONDS) > 0,
        "latency recorded");
    assertEquals(2, registry.get("ration.client.ttl.locks.acquired").tag("service", "billing").counter().count());
    assertEquals(2, registry.get("ration.client.ttl.locks.lost").counter().count(), "release and refresh found it gone");
    assertEquals(57, registry.get("ration.client.ttl.locks.fencing.token").gauge().value());
  }

  @Test
  void quotaCallsAndRefusalsAreCounted() {
    QuotaClient quotas = QuotaAccess.client(transport);
    new QuotaMetrics(quotas).bindTo(registry);

    transport.answer(reserve(Outcome.LIMIT_EXHAUSTED, 0));
    assertFalse(quotas.tryReserve("acme/shop", List.of(new Item("jobs", 3)), 0, Duration.ofMinutes(1)).succeeded());
    transport.answer(reserve(Outcome.LIMIT_EXHAUSTED, 0));
    assertThrows(QuotaRefusedException.class, () -> quotas.reserve("acme/shop", "jobs", 3, Duration.ofMinutes(1)));
    transport.answer(reserve(Outcome.SUCCESS, 7));
    transport.answer(new Response.Quota(new QuotaResponse.SettleReply(Outcome.SUCCESS, "", 7,
        EventType.COMPLETED, List.of(2L), List.of(11L), false)));
    try (Reservation r = quotas.reserve("acme/shop", "jobs", 3, Duration.ofMinutes(1))) {
      r.actual(2);
    }
    transport.fail(new IllegalStateException("deadline"));
    assertThrows(RuntimeException.class, () -> quotas.cancel(8));

    assertEquals(2, calls("ration.client.quota.calls", "RESERVE", "LIMIT_EXHAUSTED").count());
    assertEquals(1, calls("ration.client.quota.calls", "RESERVE", "SUCCESS").count());
    assertEquals(1, calls("ration.client.quota.calls", "COMPLETE", "SUCCESS").count());
    assertEquals(1, calls("ration.client.quota.calls", "CANCEL", QuotaMetrics.FAILED).count());
    assertEquals(2, registry.get("ration.client.quota.reservations.refused")
        .tag("reason", "LIMIT_EXHAUSTED").tag("resource", "jobs").counter().count());
  }

  /**
   * Goal: a call's latency is measured on the injected clock, not the system's: a clock that
   * moves 7 ms between two reads makes every call last exactly 7 ms.
   */
  @Test
  void latencyIsMeasuredOnTheInjectedClock() {
    java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong();
    MonotonicClock clock = () -> now.getAndAdd(Duration.ofMillis(7).toNanos());
    TtlEntries ttl = TtlAccess.entries(transport, clock);
    new TtlMetrics(ttl).bindTo(registry);
    QuotaClient quotas = QuotaAccess.client(transport, clock);
    new QuotaMetrics(quotas).bindTo(registry);

    transport.answer(ttlWrite(Outcome.SUCCESS, 0, 5));
    ttl.put("app", "k", new byte[] {1}, Duration.ofSeconds(30));
    transport.answer(reserve(Outcome.LIMIT_EXHAUSTED, 0));
    quotas.tryReserve("acme/shop", List.of(new Item("jobs", 3)), 0, Duration.ofMinutes(1));

    assertEquals(7.0, calls("ration.client.ttl.calls", "PUT", "SUCCESS")
        .totalTime(java.util.concurrent.TimeUnit.MILLISECONDS));
    assertEquals(7.0, calls("ration.client.quota.calls", "RESERVE", "LIMIT_EXHAUSTED")
        .totalTime(java.util.concurrent.TimeUnit.MILLISECONDS));
  }

  private Timer calls(String name, String operation, String outcome) {
    return registry.get(name).tag("operation", operation).tag("outcome", outcome).timer();
  }

  private static Response ttlWrite(Outcome outcome, long currentVersion, long version) {
    return new Response.Ttl(new TtlResponse.WriteReply(outcome, "", currentVersion, version,
        version == 0 ? 0 : 60_000));
  }

  private static Response reserve(Outcome outcome, long id) {
    boolean ok = outcome == Outcome.SUCCESS;
    return new Response.Quota(new QuotaResponse.ReserveReply(outcome, ok ? "" : "no room",
        ok ? "" : "acme", "jobs", 0, 0, id, ok ? 60_000 : 0, 1,
        ok ? List.of(new QuotaResponse.ReservedItem("jobs", 3, 0, "jobs")) : List.of()));
  }

  /** Answers each call with the next scripted reply (or failure), at once. */
  static final class Scripted implements Transport {
    private final Deque<CompletableFuture<Response>> replies = new ArrayDeque<>();
    private long ids;

    void answer(Response r) {
      replies.add(CompletableFuture.completedFuture(r));
    }

    void fail(RuntimeException e) {
      replies.add(CompletableFuture.failedFuture(e));
    }

    @Override
    public synchronized CompletableFuture<Response> call(Request request) {
      CompletableFuture<Response> next = replies.poll();
      if (next == null) {
        throw new AssertionError("no reply scripted for " + request);
      }
      return next;
    }

    @Override
    public synchronized long nextRequestId() {
      return ++ids;
    }

    @Override
    public <T extends Response> CompletableFuture<T> call(long requestId, Request request, Class<T> replyType) {
      return call(request).thenApply(replyType::cast);
    }

    @Override
    public <T extends Response> CompletableFuture<T> call(Request request, Class<T> replyType) {
      return call(request).thenApply(replyType::cast);
    }
  }
}
