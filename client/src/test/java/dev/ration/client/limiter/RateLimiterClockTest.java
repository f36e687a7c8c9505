package dev.ration.client.limiter;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.ration.client.time.MonotonicClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Goal: a limiter on an ordinary scheduler takes its time from the client's injected clock, so
 * a wait for a lease ends when that clock passes the timeout, not when real time does. The
 * scheduler here never runs anything (no lease ever comes); the clock moves an hour per read.
 */
class RateLimiterClockTest {
  private final FakeLeaseTransport fake = new FakeLeaseTransport();
  private final LimiterScheduler idle = (task, delay) -> () -> {};
  private final AtomicLong now = new AtomicLong();
  private final MonotonicClock clock = () -> now.getAndAdd(Duration.ofHours(1).toNanos());

  private RateLimiter limiter() {
    return RateLimiter.create(fake, idle, clock, "t", "r", "h", LimiterOptions.defaults());
  }

  @Test
  void waitsForALeaseEndOnTheInjectedClock() {
    RateLimiter l = limiter();
    assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
      assertFalse(l.awaitReady(Duration.ofMinutes(30)), "the clock passed the timeout");
      assertFalse(l.tryAcquire(1, Duration.ofMinutes(30)), "the clock passed the timeout");
    });
  }
}
