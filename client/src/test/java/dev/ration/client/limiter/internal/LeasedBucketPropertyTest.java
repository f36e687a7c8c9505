package dev.ration.client.limiter.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.testkit.Gen;
import dev.ration.testkit.Property;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The bucket against an exact reference model, with a manual clock (time passed in). */
class LeasedBucketPropertyTest {
  private static final long NT = LeasedBucket.UNITS_PER_TOKEN;

  record Step(long advanceNanos, long permits) {}

  /** Advances of up to 1 µs, 50 ms or 2 s (each range a third of the time), 1–40 permits. */
  static final Gen<Step> STEP = r -> new Step(
      switch (r.uniform(0, 2)) {
        case 0 -> r.between(0, 1_000);
        case 1 -> r.between(0, 50_000_000L);
        default -> r.between(0, 2_000_000_000L);
      },
      r.between(1, 40));

  record Run(long rate, long burst, long start, long t0, long termNanos, List<Step> steps) {}

  /**
   * Every decision equals the reference model's: balance(t+dt) = min(burst, balance + rate·dt),
   * admit n iff balance ≥ n. Hence total admitted ≤ start + rate·elapsed and never above the
   * balance; nothing at or after validUntil.
   */
  @Test
  void agreesWithReferenceAndNeverOverAdmits() {
    Gen<Run> runs = r -> new Run(r.between(0, 5_000), r.between(0, 100), r.between(0, 150),
        r.between(-1_000_000_000L, 1_000_000_000L), r.between(1, 20_000_000_000L), STEP.list(0, 200).next(r));
    Property.forAll(300, runs, run -> {
      long rate = run.rate();
      long burst = run.burst();
      long start = run.start();
      long t0 = run.t0();
      LeasedBucket b = new LeasedBucket();
      long validUntil = t0 + run.termNanos();
      b.install(rate, burst, start, validUntil, t0);
      long ref = Math.min(start, burst) * NT; // reference balance in microtokens
      long now = t0;
      long refMicros = 0; // whole microseconds since t0 already credited
      long admittedTokens = 0;
      for (Step s : run.steps()) {
        now += s.advanceNanos();
        long micros = (Math.min(now, validUntil) - t0) / 1_000;
        ref = Math.min(burst * NT, ref + (micros - refMicros) * rate);
        refMicros = micros;
        boolean expected = now < validUntil && ref >= s.permits() * NT;
        boolean got = b.tryAcquire(s.permits(), now);
        assertEquals(expected, got, "permits " + s.permits() + " at +" + (now - t0) + " ns, ref balance " + ref);
        if (got) {
          ref -= s.permits() * NT;
          admittedTokens += s.permits();
        }
        long elapsed = Math.min(now, validUntil) - t0;
        long bound = Math.min(start, burst) + (elapsed * rate) / NT;
        assertTrue(admittedTokens <= bound, "admitted " + admittedTokens + " > start + rate·elapsed = " + bound);
        if (now < validUntil) {
          assertEquals(ref, b.balanceUnits(now), "balance at +" + (now - t0));
        }
      }
    });
  }

  record Renewal(long rate, long burst, long start, long spendAt, int spend, long newRate, long newBurst) {}

  /** A renewal keeps the balance (truncated to the new burst) and never adds to it. */
  @Test
  void renewalNeverRefillsAndTruncates() {
    Gen<Renewal> renewals = r -> new Renewal(r.between(0, 5_000), r.between(0, 100), r.between(0, 100),
        r.between(0, 3_000_000_000L), r.between(0, 30), r.between(0, 5_000), r.between(0, 100));
    Property.forAll(300, renewals, c -> {
      LeasedBucket b = new LeasedBucket();
      long t0 = 1_000;
      b.install(c.rate(), c.burst(), c.start(), t0 + 5_000_000_000L, t0);
      for (int i = 0; i < c.spend(); i++) {
        b.tryAcquire(1, t0 + c.spendAt());
      }
      long before = b.balanceUnits(t0 + c.spendAt());
      b.renew(c.newRate(), c.newBurst(), t0 + 10_000_000_000L, t0 + c.spendAt());
      long after = b.balanceUnits(t0 + c.spendAt());
      assertEquals(Math.min(before, c.newBurst() * NT), after, "renew at the same instant");
      assertTrue(after <= before, "renewal refilled: " + before + " -> " + after);
      assertEquals(c.newRate(), b.ratePerSecond());
      assertEquals(c.newBurst(), b.burst());
    });
  }

  record Expiry(long rate, long burst, long after) {}

  /** Nothing at or after hard expiry, whatever the balance. */
  @Test
  void nothingAfterExpiry() {
    Gen<Expiry> cases = r -> new Expiry(r.between(1, 1_000_000), r.between(1, 100), r.between(0, 10_000_000_000L));
    Property.forAll(200, cases, c -> {
      LeasedBucket b = new LeasedBucket();
      b.install(c.rate(), c.burst(), c.burst(), 1_000_000_000L, 0);
      assertEquals(LeasedBucket.EXPIRED, b.acquireOrWaitNanos(1, 1_000_000_000L + c.after()));
      assertEquals(0, b.balance(1_000_000_000L + c.after()));
      assertTrue(b.tryAcquire(1, 999_999_999L), "just before expiry the full bucket admits");
    });
  }

  record Invalidation(long rate, long burst, long spend, long later) {}

  /** Invalidate stops everything and reports what was left; install starts afresh. */
  @Test
  void invalidateStopsEverything() {
    Gen<Invalidation> cases = r -> new Invalidation(r.between(0, 1_000), r.between(1, 100), r.between(0, 100),
        r.between(0, 10_000_000_000L));
    Property.forAll(200, cases, c -> {
      LeasedBucket b = new LeasedBucket();
      b.install(c.rate(), c.burst(), c.burst(), Long.MAX_VALUE / 2, 0);
      long spent = 0;
      for (int i = 0; i < c.spend(); i++) {
        spent += b.tryAcquire(1, 0) ? 1 : 0;
      }
      assertEquals(c.burst() - spent, b.invalidate(0), "unused whole tokens at invalidation");
      assertEquals(0, b.invalidate(0), "second invalidate is a no-op");
      assertEquals(LeasedBucket.NO_LEASE, b.acquireOrWaitNanos(1, c.later()));
      assertFalse(b.installed());
      b.install(c.rate(), c.burst(), 0, Long.MAX_VALUE / 2, c.later());
      assertEquals(0, b.balance(c.later()), "a fresh install starts at its start balance (0)");
    });
  }

  @Test
  void waitTimeIsExactCeilingAndUnknownPastTerm() {
    LeasedBucket b = new LeasedBucket();
    b.install(3, 10, 0, 1_000_000_000L, 0);
    // 1 token at 3/s, credited per whole microsecond: ceil(1e6 / 3) = 333,334 µs.
    assertEquals(333_334_000L, b.acquireOrWaitNanos(1, 0));
    assertFalse(b.tryAcquire(1, 333_333_999L));
    assertTrue(b.tryAcquire(1, 333_334_000L));
    assertEquals(333_333_000L - 500L, b.acquireOrWaitNanos(1, 333_334_500L), "next token at 666,667 µs");
    assertEquals(LeasedBucket.NOT_IN_TERM, b.acquireOrWaitNanos(11, 400_000_000L), "more than the burst");
    assertEquals(LeasedBucket.NOT_IN_TERM, b.acquireOrWaitNanos(3, 400_000_000L), "refill would end after expiry");
  }

  @Test
  void refillStopsBeforeFixedPointOverflow() {
    LeasedBucket b = new LeasedBucket();
    long rate = 1_000_000_000L; // 1e15 microtokens/s: 2^56 is reached after ~72 s
    b.install(rate, LeasedBucket.MAX_BURST, 0, 3_600_000_000_000L, 0);
    long late = 3_000_000_000_000L;
    assertTrue(b.balanceUnits(late) <= LeasedBucket.MAX_BURST * NT);
    assertTrue(b.tryAcquire(1, late));
  }

  /**
   * Two threads race for a bucket of N tokens with no refill, while a third renews (same terms)
   * and finally invalidates: admitted + unused-at-invalidation is exactly N, never more.
   */
  @Test
  void concurrentAcquireNeverOverAdmits() throws Exception {
    for (int round = 0; round < 20; round++) {
      LeasedBucket b = new LeasedBucket();
      long n = 20_000;
      b.install(0, n, n, Long.MAX_VALUE, 0);
      AtomicLong admitted = new AtomicLong();
      AtomicBoolean stop = new AtomicBoolean();
      CountDownLatch go = new CountDownLatch(1);
      Runnable worker = () -> {
        try {
          go.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        long mine = 0;
        for (int i = 0; i < 50_000 && !stop.get(); i++) {
          if (b.tryAcquire(1, i)) {
            mine++;
          }
        }
        admitted.addAndGet(mine);
      };
      Thread t1 = new Thread(worker);
      Thread t2 = new Thread(worker);
      t1.start();
      t2.start();
      go.countDown();
      for (int i = 0; i < 200; i++) {
        b.renew(0, n, Long.MAX_VALUE, i);
      }
      long unused = b.invalidate(0);
      stop.set(true);
      t1.join(30_000);
      t2.join(30_000);
      assertFalse(t1.isAlive() || t2.isAlive(), "workers finished");
      assertEquals(n, admitted.get() + unused,
          "round " + round + ": admitted " + admitted.get() + " + unused " + unused + " != " + n);
    }
  }
}
