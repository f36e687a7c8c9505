package dev.ration.client.limiter.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Goal: a derated bucket refills at r·(1 − ε) on its own clock, so a holder whose clock runs up
 * to ε fast still refills at most r per real second (the fleet keeps R·T + B).
 */
class LeasedBucketDerateTest {
  private static final long SECOND = 1_000_000_000L;

  private static long drain(LeasedBucket b, long nowNanos) {
    long taken = 0;
    while (b.tryAcquire(1, nowNanos)) {
      taken++;
    }
    return taken;
  }

  @Test
  void derateOfTwoPercentRefillsAtMostNinetyEightPercent() {
    long perCredit = LeasedBucket.nanosPerCreditFor(0.02);
    assertEquals(1021, perCredit);
    LeasedBucket b = new LeasedBucket(perCredit);
    b.install(1_000, 100_000, 0, 100 * SECOND, 0);
    // 10 s of a clock running 2% fast: 10.2 s of holder time, 10 s of real time.
    long refilled = drain(b, 10_200_000_000L);
    assertTrue(refilled <= 10_000, "refilled " + refilled + " > r·T = 10000 in 10 real seconds");
    assertTrue(refilled >= 9_980, "refilled " + refilled + ": derating must cost no more than ε");
  }

  @Test
  void undeRatedBucketRefillsExactly() {
    LeasedBucket b = new LeasedBucket();
    b.install(1_000, 100_000, 0, 100 * SECOND, 0);
    assertEquals(10_000, drain(b, 10 * SECOND));
  }

  @Test
  void derateOutOfRangeIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new LeasedBucket(999));
    assertThrows(IllegalArgumentException.class, () -> LeasedBucket.nanosPerCreditFor(0.5));
  }
}
