package dev.ration.client.limiter.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Goal: a renewal applied with a clock reading older than an admission made on another thread
 * (the control thread read its clock, then a request thread read a later one and spent the
 * tokens that accrued in between) neither fails nor counts those tokens twice: the new terms
 * start in debt by exactly what was spent ahead. This race used to throw ("negative balance")
 * inside the limiter's control step, which then never finished the renewal: the lease expired
 * locally and the holder started over from a zero balance, admitting nothing for a second.
 */
class LeasedBucketControlRaceTest {
  private static final long MS = 1_000_000L;
  private static final long SECOND = 1_000 * MS;

  @Test
  void aRenewalReadingAnOlderClockThanAnAdmissionCarriesTheDebt() {
    LeasedBucket b = new LeasedBucket();
    b.install(1_000, 10, 0, 60 * SECOND, 0);
    // A request thread at 10 ms: 10 tokens have accrued (1,000/s), all spent.
    for (int i = 0; i < 10; i++) {
      assertTrue(b.tryAcquire(1, 10 * MS), "token " + i);
    }
    assertFalse(b.tryAcquire(1, 10 * MS));
    // The renewal's clock reading was 5 ms: 5 tokens were spent ahead of it.
    b.renew(1_000, 10, 60 * SECOND, 5 * MS);
    assertEquals(0, b.balance(5 * MS), "in debt, shown as empty");
    assertFalse(b.tryAcquire(1, 10 * MS), "the tokens of 5..10 ms were spent already");
    assertTrue(b.tryAcquire(1, 11 * MS), "and refill resumes after them");
    assertFalse(b.tryAcquire(1, 11 * MS));
    // Over 0..11 ms: 11 tokens admitted, exactly rate·t with a zero start: none counted twice.
    long more = 0;
    while (b.tryAcquire(1, 20 * MS)) {
      more++;
    }
    assertEquals(9, more, "by 20 ms, 20 tokens in all");
  }

  @Test
  void invalidateAndInstallOverADebtHandBackNothing() {
    LeasedBucket b = new LeasedBucket();
    b.install(1_000, 10, 0, 60 * SECOND, 0);
    for (int i = 0; i < 10; i++) {
      assertTrue(b.tryAcquire(1, 10 * MS));
    }
    b.renew(1_000, 10, 60 * SECOND, 5 * MS);
    assertEquals(0, b.invalidate(6 * MS), "a debt is not returned as negative unused tokens");
    b.install(1_000, 10, 0, 60 * SECOND, 7 * MS);
    b.renew(1_000, 10, 60 * SECOND, 7 * MS);
    assertEquals(0, b.install(1_000, 10, 0, 60 * SECOND, 7 * MS));
  }
}
