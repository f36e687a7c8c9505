package dev.ration.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ration.client.internal.RetryAfter;
import org.junit.jupiter.api.Test;

/** The shared retry-after rule: the earliest known time still ahead, never below the minimum. */
class RetryAfterTest {
  private static final long U = RetryAfter.UNKNOWN;

  /** Goal: the earliest future candidate wins, whatever the order they are given in. */
  @Test
  void theEarliestKnownFutureCandidateWins() {
    assertEquals(30, RetryAfter.earliestWaitNanos(100, 1, 500, 130, U, 200));
    assertEquals(30, RetryAfter.earliestWaitNanos(100, 1, U, 200, 130));
  }

  /** Goal: past or unknown candidates count as unknown; none known is UNKNOWN. */
  @Test
  void pastAndUnknownCandidatesAreIgnored() {
    assertEquals(50, RetryAfter.earliestWaitNanos(100, 1, 90, 100, 150));
    assertEquals(U, RetryAfter.earliestWaitNanos(100, 1, 90, U));
    assertEquals(U, RetryAfter.earliestWaitNanos(100, 1));
  }

  /** Goal: a wait is never below the minimum, and the clock may wrap (nanoTime order). */
  @Test
  void theMinimumHoldsAndTheClockMayWrap() {
    assertEquals(10, RetryAfter.earliestWaitNanos(100, 10, 101));
    assertEquals(20, RetryAfter.earliestWaitNanos(Long.MAX_VALUE - 10, 1, Long.MAX_VALUE + 10));
  }
}
