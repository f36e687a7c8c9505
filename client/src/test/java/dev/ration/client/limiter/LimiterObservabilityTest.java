package dev.ration.client.limiter;

import static dev.ration.client.limiter.FakeLeaseTransport.granted;
import static dev.ration.client.limiter.FakeLeaseTransport.lease;
import static dev.ration.client.limiter.FakeLeaseTransport.rejected;
import static dev.ration.wire.Mode.BEST_EFFORT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.metrics.RateLimiterMetrics;
import dev.ration.wire.Outcome;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What a limiter shows of itself: decision counts by reason, lease state and its changes,
 * renewal latency and emergency spending, through Micrometer and {@link LeaseListener}s; and
 * the rate limit on its log lines. Manual clock, scripted transport; lease 1000 ms, renew at
 * 50 %, local expiry = sent + 975 ms.
 */
class LimiterObservabilityTest {
  private static final long MS = 1_000_000L;
  private static final long T0 = 1_000_000_000L;

  private final ManualScheduler sched = new ManualScheduler(java.time.Duration.ofNanos(T0));
  private final FakeLeaseTransport fake = new FakeLeaseTransport();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private RateLimiter limiter() {
    return RateLimiter.create(fake, sched, "t", "r", "h",
        LimiterOptions.builder().manual(sched).renewFraction(0.5).derateRefill(false).build());
  }

  private double decisions(String reason) {
    return registry.get("ration.limiter.decisions").tag("reason", reason).tag("tenant", "t")
        .functionCounter().count();
  }

  private double state(LeaseState s) {
    return registry.get("ration.limiter.lease.state").tag("state", s.name()).gauge().value();
  }

  /** Goal: the meters move with what the limiter does, through a loss and a reconnection. */
  @Test
  void metersFollowDecisionsStateRenewalsAndEmergency() {
    RateLimiter l = limiter();
    new RateLimiterMetrics(l).bindTo(registry);
    assertEquals(1.0, state(LeaseState.NONE));
    assertFalse(l.tryAcquire(1));
    assertEquals(1.0, decisions("NO_LEASE"));
    sched.runDue();
    fake.last("acquire").reply().complete(granted(lease(1, 1, 5, 10, 10, 1000, BEST_EFFORT, 4), 3));
    sched.runDue();
    assertEquals(1.0, state(LeaseState.HELD));
    assertEquals(0.0, state(LeaseState.NONE));
    assertTrue(l.tryAcquire(2));
    assertEquals(Decision.Reason.NO_TOKENS, l.decide(5).reason());
    assertEquals(1.0, decisions("ADMITTED"));
    assertEquals(1.0, decisions("NO_TOKENS"));
    assertEquals(2.0, registry.get("ration.limiter.admitted.permits").functionCounter().count());

    sched.advanceTo(java.time.Duration.ofNanos(T0 + 500 * MS));
    sched.advance(java.time.Duration.ofNanos(30 * MS)); // the renewal takes 30 ms
    fake.last("renew").reply().complete(granted(lease(1, 1, 6, 10, 10, 1000, BEST_EFFORT, 4), 0));
    sched.runDue();
    var timer = registry.get("ration.limiter.renew.latency").tag("outcome", "SUCCESS").timer();
    assertEquals(1, timer.count());
    assertEquals(30.0, timer.totalTime(TimeUnit.MILLISECONDS), 0.001);

    // The next renewal hangs: local expiry, emergency.
    sched.advanceTo(java.time.Duration.ofNanos(T0 + 530 * MS + 975 * MS));
    assertEquals(1.0, state(LeaseState.EMERGENCY));
    assertTrue(l.tryAcquire(3));
    assertEquals(1.0, decisions("ADMITTED_EMERGENCY"));
    assertEquals(3.0, registry.get("ration.limiter.emergency.spent").functionCounter().count());
    assertFalse(l.tryAcquire(2));
    assertEquals(1.0, decisions("EMERGENCY_EXHAUSTED"));
    fake.last("acquire").reply().complete(granted(lease(2, 1, 9, 10, 10, 1000, BEST_EFFORT, 4), 0));
    sched.runDue();
    assertEquals(1.0, state(LeaseState.HELD));
    assertEquals(3.0, registry.get("ration.limiter.emergency.spent").functionCounter().count());
    assertEquals(3.0, registry.get("ration.limiter.emergency.unreported").gauge().value());

    l.closeAsync();
    assertEquals(1.0, state(LeaseState.CLOSED));
    assertFalse(l.tryAcquire(1));
    assertEquals(1.0, decisions("CLOSED"));
  }

  /** Goal: listeners see every state change in order, on the scheduler, and a failing one is dropped. */
  @Test
  void listenersSeeEachStateChangeInOrder() {
    RateLimiter l = limiter();
    List<String> seen = new ArrayList<>();
    l.addListener((lim, from, to) -> {
      throw new IllegalStateException("a faulty listener");
    });
    l.addListener((lim, from, to) -> seen.add(from + ">" + to));
    assertFalse(l.tryAcquire(1));
    sched.runDue();
    fake.last("acquire").reply().complete(granted(lease(1, 1, 5, 10, 10, 1000, dev.ration.wire.Mode.HARD, 0), 0));
    sched.runDue();
    sched.advanceTo(java.time.Duration.ofNanos(T0 + 500 * MS));
    fake.last("renew").reply().complete(rejected(Outcome.LEASE_UNKNOWN, 0));
    sched.runDue();
    assertEquals(LeaseState.LOST, l.state());
    fake.last("acquire").reply().complete(granted(lease(2, 1, 7, 10, 10, 1000, dev.ration.wire.Mode.HARD, 0), 0));
    sched.runDue();
    l.closeAsync();
    sched.runDue();
    assertEquals(List.of("NONE>HELD", "HELD>LOST", "LOST>HELD", "HELD>CLOSED"), seen);
  }

  /**
   * Goal: the limiter's own warnings are rate-limited where they recur: an acquire refused over
   * and over (the limit is full) writes one line per interval and counts the rest, and a lease
   * lost locally writes its line once.
   */
  @Test
  void refusalsAndLeaseLossAreLoggedOncePerInterval() {
    RateLimiter l = limiter();
    assertFalse(l.tryAcquire(1));
    sched.runDue();
    for (int i = 0; i < 5; i++) {
      int sent = fake.of("acquire").size();
      fake.last("acquire").reply().complete(FakeLeaseTransport.rejected(dev.ration.wire.Outcome.LIMIT_EXHAUSTED, 100));
      sched.runDue();
      // The next acquire goes out after the hint and the backoff (under 1 s for these five).
      for (int step = 0; step < 100 && fake.of("acquire").size() == sent; step++) {
        sched.advance(java.time.Duration.ofMillis(10));
      }
      assertEquals(sent + 1, fake.of("acquire").size(), "refusal " + i + " was retried");
    }
    assertEquals(1, l.refusedLog.written(), "one line within the interval");
    assertTrue(sched.now().toNanos() - T0 < 10_000 * MS, "all within one 10 s interval");
    assertEquals(4, l.refusedLog.suppressed(), "the other refusals are counted, not written");

    fake.last("acquire").reply().complete(granted(lease(1, 1, 5, 10, 10, 1000, BEST_EFFORT, 4), 0));
    sched.runDue();
    assertEquals(LeaseState.HELD, l.state());
    assertEquals(0, l.lostLog.written());
    // Renewals are never answered: the lease expires locally, once.
    sched.advance(java.time.Duration.ofSeconds(2));
    assertEquals(LeaseState.EMERGENCY, l.state());
    assertEquals(1, l.lostLog.written(), "the loss is logged");
  }
}
