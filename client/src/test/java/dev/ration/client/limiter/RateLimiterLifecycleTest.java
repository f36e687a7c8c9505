package dev.ration.client.limiter;

import static dev.ration.wire.Mode.BEST_EFFORT;
import static dev.ration.wire.Mode.HARD;
import static dev.ration.client.limiter.FakeLeaseTransport.granted;
import static dev.ration.client.limiter.FakeLeaseTransport.lease;
import static dev.ration.client.limiter.FakeLeaseTransport.rejected;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.wire.Outcome;
import dev.ration.protocol.Response;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The limiter's lease lifecycle against a scripted transport, on a manual clock and scheduler.
 * Lease duration 1000 ms, renew at 50%, ε = 2%, margin 5 ms: local expiry = sent + 975 ms.
 */
class RateLimiterLifecycleTest {
  private static final long MS = 1_000_000L;
  private static final long T0 = 1_000_000_000L;

  private final ManualScheduler sched = new ManualScheduler(java.time.Duration.ofNanos(T0));
  private final FakeLeaseTransport fake = new FakeLeaseTransport();

  private RateLimiter limiter(long demandRate, long demandBurst) {
    return RateLimiter.create(fake, sched, "t", "r", "h",
        LimiterOptions.builder().manual(sched).renewFraction(0.5).derateRefill(false).demand(demandRate, demandBurst).build());
  }

  /** First use kicks an acquire and is answered at once; the grant is installed on reply. */
  private void startWith(RateLimiter l, Response.LeaseReply reply) {
    assertFalse(l.tryAcquire(1), "no lease yet");
    sched.runDue();
    fake.last("acquire").reply().complete(reply);
    sched.runDue();
  }

  @Test
  void acquiresOnFirstUseWithoutBlockingAndStartsAtZero() {
    RateLimiter l = limiter(10, 5);
    Decision d = l.decide(1);
    assertEquals(Decision.Reason.NO_LEASE, d.reason());
    assertFalse(d.retryAfterKnown(), "no grant pending: bounded policy");
    assertEquals(0, fake.calls.size(), "the hot path does not send; the scheduler does");
    sched.runDue();
    assertEquals(1, fake.of("acquire").size());
    assertEquals(10, fake.last("acquire").demandRate());
    assertEquals(5, fake.last("acquire").demandBurst());
    fake.last("acquire").reply().complete(granted(lease(1, 1, 5, 10, 10, 1000, HARD, 0), 0));
    sched.runDue();
    Decision empty = l.decide(1);
    assertEquals(Decision.Reason.NO_TOKENS, empty.reason());
    assertTrue(empty.retryAfterKnown());
    assertEquals(100 * MS, empty.retryAfter().toNanos(), "1 token at 10/s");
    assertEquals(1, empty.retryAfterSeconds());
    sched.advance(java.time.Duration.ofNanos(100 * MS));
    assertTrue(l.tryAcquire(1));
    assertFalse(l.tryAcquire(1));
    assertEquals(1, fake.of("acquire").size(), "one acquire only");
  }

  @Test
  void renewsAtFractionOfDurationFromSendTimeAndExpiresFromSendTime() {
    RateLimiter l = limiter(1, 1);
    l.tryAcquire(1);
    sched.runDue(); // acquire sent at T0
    sched.advance(java.time.Duration.ofNanos(200 * MS)); // the answer takes 200 ms
    fake.last("acquire").reply().complete(granted(lease(1, 1, 5, 10, 10, 1000, HARD, 0), 10));
    sched.runDue();
    sched.advanceTo(java.time.Duration.ofNanos(T0 + 499 * MS));
    assertEquals(0, fake.of("renew").size(), "not before sent + 500 ms");
    sched.advanceTo(java.time.Duration.ofNanos(T0 + 500 * MS));
    assertEquals(1, fake.of("renew").size(), "at sent + 500 ms, not answer + 500 ms");
    assertEquals(5, fake.last("renew").version(), "presents the current version");
    assertEquals(T0 + 975 * MS, l.bucket().validUntilNanos(), "sent + 1000·0.98 − 5 ms");
  }

  @Test
  void hardModeAdmitsNothingAtLocalExpiryAndReacquiresOnceTheLedgerNoLongerCountsTheLease() {
    RateLimiter l = limiter(1, 1);
    startWith(l, granted(lease(1, 1, 5, 0, 10, 1000, HARD, 0), 10));
    sched.advanceTo(java.time.Duration.ofNanos(T0 + 974 * MS));
    assertEquals(1, fake.of("renew").size(), "renew sent, never answered");
    assertTrue(l.tryAcquire(1), "valid just before local expiry");
    sched.advanceTo(java.time.Duration.ofNanos(T0 + 975 * MS));
    assertFalse(l.tryAcquire(1), "hard: nothing at local expiry");
    assertEquals(Decision.Reason.LEASE_EXPIRED, l.decide(1).reason());
    assertEquals(LeaseState.SUSPENDED, l.state(), "the renewal is still unanswered");
    assertTrue(l.bucket().installed(), "the balance is kept while suspended");
    assertEquals(0, fake.of("return").size());
    assertEquals(1, fake.of("acquire").size());
    // The ledger counts the lease until sent + (counted-until − granted) = T0 + 1100 ms.
    sched.advanceTo(java.time.Duration.ofNanos(T0 + 1099 * MS));
    assertEquals(LeaseState.SUSPENDED, l.state());
    assertFalse(l.tryAcquire(1));
    sched.advanceTo(java.time.Duration.ofNanos(T0 + 1100 * MS));
    assertEquals(LeaseState.LOST, l.state());
    assertFalse(l.bucket().installed(), "invalidated");
    assertEquals(1, fake.of("return").size(), "the old lease is returned, with nothing");
    assertEquals(0, fake.last("return").unused());
    assertEquals(2, fake.of("acquire").size(), "a fresh lease is acquired");
    // A late answer to the old renewal is ignored (superseded request).
    fake.last("renew").reply().complete(granted(lease(1, 1, 6, 10, 10, 1000, HARD, 0), 0));
    sched.runDue();
    assertFalse(l.tryAcquire(1));
    assertEquals(1, l.suspensionsTotal());
    assertEquals(0, l.resumptionsTotal());
  }

  /**
   * Goal: a renewal that is merely slow (answered after local expiry, while the ledger still
   * counts the lease) costs the holder the time it was late, not its lease and balance: the
   * suspended lease resumes with the balance it had at expiry, and no fresh lease is acquired.
   */
  @Test
  void aSuspendedLeaseResumesWithItsBalanceWhenTheSlowRenewalSucceeds() {
    RateLimiter l = limiter(1, 1);
    java.util.List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    l.addListener((lim, from, to) -> seen.add(from + ">" + to));
    startWith(l, granted(lease(1, 1, 5, 0, 10, 1000, HARD, 0), 10));
    assertTrue(l.tryAcquire(3));
    sched.advanceTo(java.time.Duration.ofNanos(T0 + 975 * MS));
    assertEquals(LeaseState.SUSPENDED, l.state());
    assertFalse(l.tryAcquire(1));
    sched.advanceTo(java.time.Duration.ofNanos(T0 + 1050 * MS));
    fake.last("renew").reply().complete(granted(lease(1, 1, 6, 0, 10, 1000, HARD, 0), 0));
    sched.runDue();
    assertEquals(LeaseState.HELD, l.state());
    assertTrue(l.tryAcquire(7), "the 7 tokens left at expiry are still the holder's");
    assertFalse(l.tryAcquire(1), "and nothing was added (rate 0)");
    assertEquals(1, fake.of("acquire").size(), "no fresh lease");
    assertEquals(0, fake.of("return").size(), "the lease was never given up");
    assertEquals(1, l.suspensionsTotal());
    assertEquals(1, l.resumptionsTotal());
    sched.runDue();
    assertEquals(java.util.List.of("NONE>HELD", "HELD>SUSPENDED", "SUSPENDED>HELD"), seen);
  }

  @Test
  void staleAnswersAreIgnored() {
    RateLimiter l = limiter(1, 1);
    startWith(l, granted(lease(1, 2, 5, 10, 10, 1000, HARD, 0), 0));
    sched.advanceTo(java.time.Duration.ofNanos(T0 + 500 * MS));
    // Older version, same epoch: ignored.
    fake.last("renew").reply().complete(granted(lease(1, 2, 4, 1000, 1000, 1000, HARD, 0), 0));
    sched.runDue();
    assertEquals(10, l.bucket().ratePerSecond(), "stale version not applied");
    sched.advance(java.time.Duration.ofNanos(50 * MS)); // backoff, then renew again
    assertEquals(2, fake.of("renew").size());
    // Newer version but older epoch: ignored.
    fake.last("renew").reply().complete(granted(lease(1, 1, 9, 1000, 1000, 1000, HARD, 0), 0));
    sched.runDue();
    assertEquals(10, l.bucket().ratePerSecond(), "older epoch not applied");
    sched.advance(java.time.Duration.ofNanos(100 * MS));
    assertEquals(3, fake.of("renew").size());
    fake.last("renew").reply().complete(granted(lease(1, 2, 7, 20, 4, 1000, HARD, 0), 0));
    sched.runDue();
    assertEquals(20, l.bucket().ratePerSecond(), "newer (epoch, version) applied");
    assertEquals(4, l.bucket().burst());
  }

  @Test
  void renewalKeepsBalanceAndTruncatesToNewBurst() {
    RateLimiter l = limiter(1, 1);
    startWith(l, granted(lease(1, 1, 5, 0, 10, 1000, HARD, 0), 8));
    assertEquals(8, l.bucket().balance(sched.nanoTime()));
    sched.advanceTo(java.time.Duration.ofNanos(T0 + 500 * MS));
    fake.last("renew").reply().complete(granted(lease(1, 1, 6, 0, 20, 1000, HARD, 0), 0));
    sched.runDue();
    assertEquals(8, l.bucket().balance(sched.nanoTime()), "growth never refills");
    sched.advanceTo(java.time.Duration.ofNanos(T0 + 1000 * MS));
    fake.last("renew").reply().complete(granted(lease(1, 1, 7, 0, 3, 1000, HARD, 0), 0));
    sched.runDue();
    assertEquals(3, l.bucket().balance(sched.nanoTime()), "shrink truncates");
  }

  @Test
  void leaseExpiredOnRenewAcquiresAFreshLeaseAtZero() {
    RateLimiter l = limiter(1, 1);
    startWith(l, granted(lease(1, 1, 5, 0, 10, 1000, HARD, 0), 10));
    sched.advanceTo(java.time.Duration.ofNanos(T0 + 500 * MS));
    fake.last("renew").reply().complete(rejected(Outcome.LEASE_EXPIRED, 0));
    sched.runDue();
    assertFalse(l.tryAcquire(1), "the old balance is gone");
    assertEquals(2, fake.of("acquire").size());
    fake.last("acquire").reply().complete(granted(lease(2, 1, 9, 10, 10, 1000, HARD, 0), 0));
    sched.runDue();
    assertEquals(0, l.bucket().balance(sched.nanoTime()), "a fresh lease starts at zero");
    assertEquals(2, l.lease().orElseThrow().leaseId());
  }

  @Test
  void bestEffortSpendsEmergencyOncePerDisconnectionAndReportsIt() {
    RateLimiter l = limiter(1, 1);
    startWith(l, granted(lease(1, 1, 5, 10, 10, 1000, BEST_EFFORT, 5), 0));
    sched.advanceTo(java.time.Duration.ofNanos(T0 + 975 * MS)); // renew sent at 500, never answered: local expiry
    assertTrue(l.inEmergency());
    assertEquals(Decision.Reason.ADMITTED_EMERGENCY, l.decide(3).reason());
    assertEquals(Decision.Reason.EMERGENCY_EXHAUSTED, l.decide(3).reason());
    assertEquals(Decision.Reason.ADMITTED_EMERGENCY, l.decide(2).reason());
    assertFalse(l.tryAcquire(1), "E spent");
    // The reconnect attempt fails; time passes: E is not refilled within one disconnection.
    fake.last("acquire").reply().completeExceptionally(new RuntimeException("partitioned"));
    sched.advance(java.time.Duration.ofNanos(10_000 * MS));
    assertFalse(l.tryAcquire(1), "no refill of E");
    assertEquals(3, fake.of("acquire").size(), "retried with backoff (50 ms), then pending");
    fake.last("acquire").reply().completeExceptionally(new RuntimeException("partitioned"));
    sched.runDue();
    sched.advance(java.time.Duration.ofNanos(100 * MS)); // second backoff
    assertEquals(4, fake.of("acquire").size());
    long sentAt = sched.nanoTime();
    fake.last("acquire").reply().complete(granted(lease(2, 1, 10, 10, 10, 1000, BEST_EFFORT, 5), 0));
    sched.runDue();
    assertFalse(l.inEmergency());
    assertEquals(5, l.emergencyUnreported());
    sched.advanceTo(java.time.Duration.ofNanos(sentAt + 500 * MS));
    assertEquals(5, fake.last("renew").emergencyUsed(), "reported on the new lease's first renewal");
    fake.last("renew").reply().complete(granted(lease(2, 1, 11, 10, 10, 1000, BEST_EFFORT, 5), 0));
    sched.runDue();
    assertEquals(0, l.emergencyUnreported());
    sched.advanceTo(java.time.Duration.ofNanos(sentAt + 1000 * MS));
    assertEquals(0, fake.last("renew").emergencyUsed(), "reported once");
    // A second disconnection gets a new budget (a new lease was held in between).
    sched.advanceTo(java.time.Duration.ofNanos(sentAt + 1475 * MS)); // renewed at +500 (answered at once), +1000 hangs
    assertTrue(l.inEmergency());
    assertTrue(l.tryAcquire(5));
  }

  @Test
  void closeInvalidatesFirstThenReturnsUnusedOnce() {
    RateLimiter l = limiter(1, 1);
    startWith(l, granted(lease(1, 1, 5, 0, 10, 1000, HARD, 0), 7));
    AtomicBoolean invalidBeforeReturn = new AtomicBoolean();
    fake.onReturn = c -> invalidBeforeReturn.set(!l.bucket().installed() && !l.tryAcquire(1));
    l.closeAsync();
    assertTrue(invalidBeforeReturn.get(), "the bucket was invalid when the return was sent");
    FakeLeaseTransport.Call ret = fake.last("return");
    assertEquals(1, ret.leaseId());
    assertEquals(5, ret.version());
    assertEquals(7, ret.unused());
    ret.returnReply().complete(new Response.ReturnReply(Outcome.SUCCESS, "", 1, 7, false));
    l.close();
    l.close();
    assertEquals(1, fake.of("return").size(), "idempotent");
    assertEquals(Decision.Reason.CLOSED, l.decide(1).reason());
    sched.advance(java.time.Duration.ofNanos(5_000 * MS));
    assertEquals(0, fake.of("renew").size(), "no renewals after close");
  }

  @Test
  void grantArrivingAfterCloseIsReturned() {
    RateLimiter l = limiter(1, 1);
    l.tryAcquire(1);
    sched.runDue();
    l.closeAsync();
    fake.last("acquire").reply().complete(granted(lease(3, 1, 5, 10, 10, 1000, HARD, 0), 4));
    sched.runDue();
    assertEquals(3, fake.last("return").leaseId());
    assertEquals(4, fake.last("return").unused());
  }

  @Test
  void limitExhaustedGivesAKnownRetryAfter() {
    RateLimiter l = limiter(1, 1);
    l.tryAcquire(1);
    sched.runDue();
    fake.last("acquire").reply().complete(rejected(Outcome.LIMIT_EXHAUSTED, 1_300));
    sched.runDue();
    Decision d = l.decide(1);
    assertEquals(Decision.Reason.NO_LEASE, d.reason());
    assertTrue(d.retryAfterKnown());
    assertEquals(1_300 * MS, d.retryAfter().toNanos());
    assertEquals(2, d.retryAfterSeconds(), "ceil(1.3 s)");
    sched.advance(java.time.Duration.ofNanos(1_299 * MS));
    assertEquals(1, fake.of("acquire").size());
    sched.advance(java.time.Duration.ofNanos(MS));
    assertEquals(2, fake.of("acquire").size(), "retried when the ledger said");
  }

  @Test
  void reportsSmoothedDemandAndPeakBurst() {
    RateLimiter l = limiter(1, 1);
    startWith(l, granted(lease(1, 1, 5, 100, 100, 1000, HARD, 0), 100)); // 1 rejected at T0
    sched.advance(java.time.Duration.ofNanos(100 * MS));
    for (int i = 0; i < 20; i++) {
      assertTrue(l.tryAcquire(1));
    }
    assertFalse(l.tryAcquire(200), "above the burst");
    sched.advanceTo(java.time.Duration.ofNanos(T0 + 500 * MS));
    FakeLeaseTransport.Call r = fake.last("renew");
    assertEquals(40, r.admittedPerSecond(), "20 over 0.5 s");
    assertEquals(402, r.rejectedPerSecond(), "201 over 0.5 s");
    assertEquals(442, r.demandRate(), "admitted + rejected, smoothed");
    assertEquals(220, r.demandBurst(), "peak permits in one ~134 ms window");
  }

  @Test
  void retryAfterSecondsIsCeilingAtLeastOne() {
    RetryPolicy p = new RetryPolicy(java.time.Duration.ofMillis(100), java.time.Duration.ofSeconds(5), 3);
    assertEquals(1, new Decision(false, Decision.Reason.NO_TOKENS, java.time.Duration.ofNanos(1), true, p).retryAfterSeconds());
    assertEquals(1, new Decision(false, Decision.Reason.NO_TOKENS, java.time.Duration.ofMillis(1_000), true, p).retryAfterSeconds());
    assertEquals(2, new Decision(false, Decision.Reason.NO_TOKENS, java.time.Duration.ofMillis(1_001), true, p).retryAfterSeconds());
    assertEquals(0, new Decision(true, Decision.Reason.ADMITTED, java.time.Duration.ZERO, true, p).retryAfterSeconds());
    assertEquals(400 * MS, p.delay(2).toNanos());
    assertEquals(5_000 * MS, p.delay(30).toNanos());
  }
}
