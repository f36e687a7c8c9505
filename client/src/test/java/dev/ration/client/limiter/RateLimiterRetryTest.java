package dev.ration.client.limiter;

import static dev.ration.client.limiter.FakeLeaseTransport.granted;
import static dev.ration.client.limiter.FakeLeaseTransport.lease;
import static dev.ration.wire.Mode.BEST_EFFORT;
import static dev.ration.wire.Mode.HARD;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.protocol.Response;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The limiter's own retries of renewals, on a manual clock against a scripted transport. The
 * coordinator applies a (client, request id) once and answers a resend with its first result;
 * {@link #ledgerCount} stands for that rule, so a renewal counted twice here would be counted
 * twice by a real ledger. Lease 1000 ms, renew at 50 %, local expiry = sent + 975 ms.
 */
class RateLimiterRetryTest {
  private static final long MS = 1_000_000L;
  private static final long T0 = 1_000_000_000L;

  private final ManualScheduler sched = new ManualScheduler(java.time.Duration.ofNanos(T0));
  private final FakeLeaseTransport fake = new FakeLeaseTransport();

  private RateLimiter limiter(long seed) {
    return RateLimiter.create(fake, sched, "t", "r", "h",
        LimiterOptions.builder().manual(sched).renewFraction(0.5).derateRefill(false)
            .jitterRandom(new SplittableRandom(seed)).build());
  }

  /** Emergency used as a ledger that applies each request id once would count it. */
  private long ledgerCount() {
    Map<Long, Long> applied = new LinkedHashMap<>();
    for (FakeLeaseTransport.Call c : fake.of("renew")) {
      applied.putIfAbsent(c.requestId(), c.emergencyUsed());
    }
    return applied.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Runs into a disconnection, spends 3 of E = 5, reconnects on lease 2: 3 to report. */
  private long spendEmergencyAndReconnect(RateLimiter l) {
    assertFalse(l.tryAcquire(1));
    sched.runDue();
    fake.last("acquire").reply().complete(granted(lease(1, 1, 5, 10, 10, 1000, BEST_EFFORT, 5), 0));
    sched.runDue();
    sched.advanceTo(java.time.Duration.ofNanos(T0 + 975 * MS)); // the renewal sent at 500 is never answered
    assertTrue(l.inEmergency());
    assertTrue(l.tryAcquire(3));
    long sentAt = sched.nanoTime();
    fake.last("acquire").reply().complete(granted(lease(2, 1, 10, 10, 10, 1000, BEST_EFFORT, 5), 0));
    sched.runDue();
    assertEquals(3, l.emergencyUnreported());
    return sentAt;
  }

  /**
   * Goal: a renewal whose answer is lost (the ledger applied it, the reply never came) is
   * resent under the same request id with the same report, so the emergency tokens it carries
   * are counted once.
   */
  @Test
  void aRenewalResentAfterALostAnswerIsTheSameRequest() {
    RateLimiter l = limiter(1);
    long sentAt = spendEmergencyAndReconnect(l);
    sched.advanceTo(java.time.Duration.ofNanos(sentAt + 500 * MS));
    FakeLeaseTransport.Call first = fake.last("renew");
    assertEquals(3, first.emergencyUsed());
    first.reply().completeExceptionally(new RuntimeException("no reply within the deadline"));
    sched.runDue();
    sched.advance(java.time.Duration.ofNanos(50 * MS)); // the first backoff is at most 50 ms
    FakeLeaseTransport.Call resent = fake.last("renew");
    assertTrue(resent != first, "resent");
    assertEquals(first.requestId(), resent.requestId(), "same request id");
    assertEquals(List.of(first.leaseId(), first.version(), first.demandRate(), first.demandBurst(),
            first.admittedPerSecond(), first.rejectedPerSecond(), first.emergencyUsed()),
        List.of(resent.leaseId(), resent.version(), resent.demandRate(), resent.demandBurst(),
            resent.admittedPerSecond(), resent.rejectedPerSecond(), resent.emergencyUsed()),
        "same fields: the coordinator refuses a different request under an answered id");
    assertEquals(3, ledgerCount(), "emergency counted once");
    resent.reply().complete(granted(lease(2, 1, 11, 10, 10, 1000, BEST_EFFORT, 5), 0));
    sched.runDue();
    assertEquals(0, l.emergencyUnreported());
    // The next renewal is a new request with a fresh report.
    sched.advanceTo(java.time.Duration.ofNanos(sentAt + 1000 * MS));
    FakeLeaseTransport.Call next = fake.last("renew");
    assertTrue(next.requestId() != first.requestId(), "answered: the next renewal is new");
    assertEquals(0, next.emergencyUsed());
    assertEquals(3, ledgerCount());
  }

  /**
   * Lease 2 (reconnected, 3 emergency tokens to report) renews at +500 ms carrying them; the
   * renewal is never answered and lease 2 expires locally. Returns the unanswered renewal; the
   * limiter has sent the acquire of lease 3 by then.
   */
  private FakeLeaseTransport.Call renewalUnansweredAtLocalExpiry(RateLimiter l) {
    long sentAt = spendEmergencyAndReconnect(l);
    sched.advanceTo(java.time.Duration.ofNanos(sentAt + 500 * MS));
    FakeLeaseTransport.Call carrying = fake.last("renew");
    assertEquals(2, carrying.leaseId());
    assertEquals(3, carrying.emergencyUsed());
    sched.advanceTo(java.time.Duration.ofNanos(sentAt + 975 * MS)); // local expiry of lease 2
    assertEquals(1, fake.of("acquire").stream().filter(c -> !c.reply().isDone()).count(),
        "lease 2 given up, lease 3 asked for");
    return carrying;
  }

  /** The renewals of lease 3 after it is granted and the first of them falls due. */
  private FakeLeaseTransport.Call firstRenewalOfLease3() {
    long granted = sched.nanoTime();
    fake.last("acquire").reply().complete(granted(lease(3, 1, 20, 10, 10, 1000, BEST_EFFORT, 5), 0));
    sched.runDue();
    sched.advanceTo(java.time.Duration.ofNanos(granted + 500 * MS));
    FakeLeaseTransport.Call next = fake.last("renew");
    assertEquals(3, next.leaseId());
    return next;
  }

  /**
   * Goal: a renewal carrying emergency tokens that is still unanswered when its lease expires
   * locally may have been applied by the ledger (only its reply was lost); its tokens are then
   * counted. The limiter resends it under its request id, the ledger answers from its record,
   * and the tokens are not reported again with the next lease: counted once, not twice.
   */
  @Test
  void emergencyOfARenewalAppliedButUnansweredAtLocalExpiryIsNotReportedAgain() {
    RateLimiter l = limiter(5);
    FakeLeaseTransport.Call carrying = renewalUnansweredAtLocalExpiry(l);
    // The ledger applied it: it counted 3. Its answer to a resend comes from that record.
    List<FakeLeaseTransport.Call> resends = fake.of("renew").stream()
        .filter(c -> c.requestId() == carrying.requestId() && c != carrying).toList();
    for (FakeLeaseTransport.Call r : resends) {
      r.reply().complete(granted(lease(2, 1, 11, 10, 10, 1000, BEST_EFFORT, 5), 0));
    }
    sched.runDue();
    FakeLeaseTransport.Call next = firstRenewalOfLease3();
    assertEquals(0, next.emergencyUsed(), "the 3 were counted with lease 2's renewal");
    assertEquals(3, ledgerCount(), "emergency counted once");
    assertEquals(0, l.emergencyUnreported());
  }

  /**
   * Goal: the other side of the same accounting. The unanswered renewal was never applied (its
   * resend is refused: the lease is gone), so its tokens were not counted and the next lease's
   * renewal carries them.
   */
  @Test
  void emergencyOfARenewalNeverAppliedIsReportedWithTheNextLease() {
    RateLimiter l = limiter(6);
    FakeLeaseTransport.Call carrying = renewalUnansweredAtLocalExpiry(l);
    FakeLeaseTransport.Call resend = fake.last("renew");
    assertEquals(carrying.requestId(), resend.requestId(), "resent under its request id");
    assertTrue(resend != carrying);
    resend.reply().complete(FakeLeaseTransport.rejected(dev.ration.wire.Outcome.LEASE_EXPIRED, 0));
    sched.runDue();
    assertEquals(3, l.emergencyUnreported());
    FakeLeaseTransport.Call next = firstRenewalOfLease3();
    assertEquals(3, next.emergencyUsed(), "not counted with lease 2: reported now");
    next.reply().complete(granted(lease(3, 1, 21, 10, 10, 1000, BEST_EFFORT, 5), 0));
    sched.runDue();
    assertEquals(0, l.emergencyUnreported());
  }

  /**
   * Goal: the terms a resent renewal brings are measured from its first send (the earliest the
   * ledger can have applied it), never from the resend: a late resend must not stretch the
   * lease past the ledger's.
   */
  @Test
  void termsOfAResentRenewalRunFromTheFirstSend() {
    RateLimiter l = limiter(2);
    assertFalse(l.tryAcquire(1));
    sched.runDue();
    fake.last("acquire").reply().complete(granted(lease(1, 1, 5, 10, 10, 1000, HARD, 0), 0));
    sched.runDue();
    sched.advanceTo(java.time.Duration.ofNanos(T0 + 500 * MS));
    fake.last("renew").reply().completeExceptionally(new RuntimeException("lost"));
    sched.runDue();
    sched.advance(java.time.Duration.ofNanos(50 * MS));
    assertEquals(2, fake.of("renew").size());
    fake.last("renew").reply().complete(granted(lease(1, 1, 6, 10, 10, 1000, HARD, 0), 0));
    sched.runDue();
    assertEquals(T0 + 500 * MS + 975 * MS, l.bucket().validUntilNanos(),
        "first send + 1000·0.98 − 5 ms");
  }

  /**
   * Goal: emergency tokens spent during a disconnection and not yet reported when the limiter
   * closes reach the ledger: close settles them in a renewal, then returns the lease presenting
   * the version that renewal produced.
   */
  @Test
  void closeReportsUnreportedEmergencyBeforeReturning() {
    RateLimiter l = limiter(3);
    spendEmergencyAndReconnect(l);
    l.closeAsync();
    FakeLeaseTransport.Call renew = fake.last("renew");
    assertEquals(2, renew.leaseId());
    assertEquals(3, renew.emergencyUsed());
    assertEquals(1, fake.of("return").size(), "only the lease lost at local expiry so far");
    renew.reply().complete(granted(lease(2, 1, 11, 10, 10, 1000, BEST_EFFORT, 5), 0));
    FakeLeaseTransport.Call ret = fake.last("return");
    assertEquals(2, ret.leaseId());
    assertEquals(11, ret.version(), "presents the version the closing renewal produced");
    assertEquals(0, l.emergencyUnreported());
    ret.returnReply().complete(new Response.ReturnReply(dev.ration.wire.Outcome.SUCCESS, "", 2, 0, false));
    assertTrue(l.closeAsync().isDone());
  }

  /**
   * Goal: a renewal in flight when the limiter closes is settled as the same request (same id)
   * before the return, so the return presents the version the ledger holds.
   */
  @Test
  void closeSettlesARenewalInFlightAsTheSameRequest() {
    RateLimiter l = limiter(4);
    assertFalse(l.tryAcquire(1));
    sched.runDue();
    fake.last("acquire").reply().complete(granted(lease(1, 1, 5, 10, 10, 1000, HARD, 0), 0));
    sched.runDue();
    sched.advanceTo(java.time.Duration.ofNanos(T0 + 500 * MS));
    FakeLeaseTransport.Call inFlight = fake.last("renew");
    l.closeAsync();
    FakeLeaseTransport.Call settle = fake.last("renew");
    assertEquals(inFlight.requestId(), settle.requestId());
    settle.reply().complete(granted(lease(1, 1, 6, 10, 10, 1000, HARD, 0), 0));
    assertEquals(6, fake.last("return").version());
  }

  /**
   * Goal: backoff delays are jittered within [d/2, d] (d = 50 ms for the first retry), so a
   * fleet that lost the coordinator together does not retry in lockstep.
   */
  @Test
  void backoffIsJitteredWithinHalfToFullDelay() {
    Set<Long> delays = new HashSet<>();
    for (long seed = 0; seed < 20; seed++) {
      ManualScheduler s = new ManualScheduler(java.time.Duration.ofNanos(T0));
      FakeLeaseTransport f = new FakeLeaseTransport();
      RateLimiter l = RateLimiter.create(f, s, "t", "r", "h",
          LimiterOptions.builder().manual(s).jitterRandom(new SplittableRandom(seed)).build());
      assertFalse(l.tryAcquire(1));
      s.runDue();
      f.last("acquire").reply().completeExceptionally(new RuntimeException("unavailable"));
      s.runDue();
      long failedAt = s.nanoTime();
      while (f.of("acquire").size() < 2) {
        s.advance(java.time.Duration.ofNanos(MS / 10));
        assertTrue(s.nanoTime() - failedAt <= 50 * MS, "retried by 50 ms (seed " + seed + ")");
      }
      long delay = s.nanoTime() - failedAt;
      assertTrue(delay >= 25 * MS - MS / 10, "not before 25 ms: " + delay + " (seed " + seed + ")");
      delays.add(delay / (MS / 10));
    }
    assertTrue(delays.size() > 5, "delays vary: " + delays);
  }
}
