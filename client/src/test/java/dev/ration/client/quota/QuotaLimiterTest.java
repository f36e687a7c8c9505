package dev.ration.client.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.limiter.ManualScheduler;
import dev.ration.client.time.LedgerTime;
import dev.ration.wire.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The quota limiter's rules step by step, over a fake coordinator answered by hand and a manual
 * clock: what a first check does, what a budget admits and until when, what one renewal round
 * reports for every budget, that a smaller budget is capped locally before the ledger is told,
 * that an ended budget is returned with its final spend and replaced, and what close returns.
 */
class QuotaLimiterTest {
  private static final Duration LEASE = Duration.ofSeconds(3);

  /** The fake coordinator: every call is kept with its future, answered by the test. */
  static final class Fake implements QuotaLimiter.Calls {
    final List<Object[]> grants = new ArrayList<>(); // {scope, resource, amount, future}
    final List<Object[]> reports = new ArrayList<>(); // {reports, future}
    final List<long[]> returns = new ArrayList<>(); // {id, spent, sequence}

    @Override
    public CompletableFuture<BudgetGrant> grant(String holder, String scope, String resource,
        long amount, Duration lease) {
      CompletableFuture<BudgetGrant> f = new CompletableFuture<>();
      grants.add(new Object[] {scope, resource, amount, f});
      return f;
    }

    @Override
    public CompletableFuture<List<BudgetReportResult>> report(List<BudgetReport> r) {
      CompletableFuture<List<BudgetReportResult>> f = new CompletableFuture<>();
      reports.add(new Object[] {r, f});
      return f;
    }

    @Override
    public CompletableFuture<BudgetReturn> giveBack(long budgetId, long spent, long sequence) {
      returns.add(new long[] {budgetId, spent, sequence});
      if (lostReturns > 0) {
        lostReturns--;
        return CompletableFuture.failedFuture(new java.io.IOException("unreachable"));
      }
      return CompletableFuture.completedFuture(
          new BudgetReturn(Outcome.SUCCESS, "", budgetId, spent, 0));
    }

    /** How many of the next returns get no answer. */
    int lostReturns;

    @SuppressWarnings("unchecked")
    void answerGrant(int i, long id, long granted, long atMillis, long leaseMillis, long windowEnd) {
      answerGrant(i, id, granted, atMillis, leaseMillis, windowEnd, 0);
    }

    @SuppressWarnings("unchecked")
    void answerGrant(int i, long id, long granted, long atMillis, long leaseMillis, long windowEnd,
        long overdraft) {
      ((CompletableFuture<BudgetGrant>) grants.get(i)[3]).complete(new BudgetGrant(Outcome.SUCCESS,
          "", "", "", Duration.ZERO, id, granted, LedgerTime.ofMillis(atMillis + leaseMillis),
          LedgerTime.ofMillis(windowEnd), 1, LedgerTime.ofMillis(atMillis), overdraft));
    }

    /** Every report request not answered yet fails as an unreachable coordinator's would. */
    @SuppressWarnings("unchecked")
    void failPendingReports() {
      for (Object[] r : reports) {
        ((CompletableFuture<List<BudgetReportResult>>) r[1])
            .completeExceptionally(new java.io.IOException("unreachable"));
      }
    }

    /** The spend the newest report of {@code budgetId} carried. */
    @SuppressWarnings("unchecked")
    long lastSpent(long budgetId) {
      for (int i = reports.size() - 1; i >= 0; i--) {
        for (BudgetReport r : (List<BudgetReport>) reports.get(i)[0]) {
          if (r.budgetId() == budgetId) {
            return r.spent();
          }
        }
      }
      throw new AssertionError("no report of budget " + budgetId);
    }

    @SuppressWarnings("unchecked")
    List<BudgetReport> reportsOf(int i) {
      return (List<BudgetReport>) reports.get(i)[0];
    }

    @SuppressWarnings("unchecked")
    void answerReports(int i, List<BudgetReportResult> answers) {
      ((CompletableFuture<List<BudgetReportResult>>) reports.get(i)[1]).complete(answers);
    }
  }

  /** The first check of {@code scope} asks for a budget, answered with these figures. */
  private void holding(String scope, long id, long granted, long atMillis, long leaseMillis,
      long windowEnd) {
    holding(scope, id, granted, atMillis, leaseMillis, windowEnd, 0);
  }

  private void holding(String scope, long id, long granted, long atMillis, long leaseMillis,
      long windowEnd, long overdraft) {
    limiter.tryAcquire(scope, "api", 1);
    clock.runDue();
    fake.answerGrant(fake.grants.size() - 1, id, granted, atMillis, leaseMillis, windowEnd,
        overdraft);
    clock.runDue();
  }

  private static BudgetReportResult renewed(long id, long granted, long spent, long at,
      long leaseMillis, long windowEnd, boolean ended) {
    return new BudgetReportResult(Outcome.SUCCESS, "", id, granted, spent,
        LedgerTime.ofMillis(Math.min(at + leaseMillis, windowEnd)), LedgerTime.ofMillis(windowEnd),
        ended, false, LedgerTime.ofMillis(at));
  }

  private final ManualScheduler clock = new ManualScheduler();
  private final Fake fake = new Fake();
  private final QuotaLimiter limiter = new QuotaLimiter(fake, clock, () -> 0, "eu-1",
      QuotaLimiterOptions.defaults().withLease(LEASE).withAmounts(10, 5).withScheduler(clock));

  /** Goal: the first check asks for a budget and refuses; then the budget admits what it holds. */
  @Test
  void theFirstCheckAsksForABudgetThenItAdmitsWhatItHolds() {
    assertFalse(limiter.tryAcquire("o/t/p", "api", 1));
    assertEquals(QuotaLimiter.Reason.NO_BUDGET, limiter.decide("o/t/p", "api", 1).reason());
    clock.runDue();
    assertEquals(1, fake.grants.size(), "one grant, however many checks");
    assertEquals(10L, fake.grants.get(0)[2]);
    fake.answerGrant(0, 7, 4, 1_000, 3_000, 60_000);
    clock.runDue();
    assertEquals(1, limiter.budgetsHeld());
    assertTrue(limiter.tryAcquire("o/t/p", "api", 3));
    assertTrue(limiter.tryAcquire("o/t/p", "api", 1));
    QuotaLimiter.Decision no = limiter.decide("o/t/p", "api", 1);
    assertEquals(QuotaLimiter.Reason.EXHAUSTED, no.reason());
    assertTrue(no.retryAfter().compareTo(Duration.ZERO) > 0);
    assertEquals(4, limiter.admittedTotal());
  }

  /**
   * Goal: a path of CONCURRENT quotas answers with a slot budget (no window): the limiter hands
   * it straight back and refuses the pair, rather than hold slots it cannot spend.
   */
  @Test
  void aSlotBudgetIsHandedBackAndThePairRefused() {
    holding("o/jobs", 9, 3, 1_000, 3_000, Long.MAX_VALUE);
    assertEquals(0, limiter.budgetsHeld());
    assertEquals(1, fake.returns.size(), "returned at once");
    assertEquals(9L, fake.returns.get(0)[0]);
    assertFalse(limiter.tryAcquire("o/jobs", "api", 1));
    assertEquals(QuotaLimiter.Reason.REFUSED, limiter.decide("o/jobs", "api", 1).reason());
  }

  /**
   * Goal: a budget admits until send time + (expiry − answer time)·(1 − ε) − margin on the local
   * clock, and not after, when no renewal was answered.
   */
  @Test
  void aBudgetStopsAtItsLocalExpiryWithoutARenewal() {
    holding("o", 7, 100, 1_000, 3_000, 60_000);
    long localExpiryMillis = (long) (3_000 * (1 - 0.02)) - 5; // 2,935 ms after the send at 0
    clock.advance(Duration.ofMillis(localExpiryMillis - 1));
    assertTrue(limiter.tryAcquire("o", "api", 1));
    clock.advance(Duration.ofMillis(1));
    assertFalse(limiter.tryAcquire("o", "api", 1));
    assertEquals(QuotaLimiter.Reason.EXPIRED, limiter.decide("o", "api", 1).reason());
  }

  /**
   * Goal: one renewal round reports every held budget in one request, with its cumulative spend
   * and a new sequence, asking for the spend plus a cushion; a growth answered adds to what is
   * admitted, and the lease is measured again from the round's send.
   */
  @Test
  void oneRoundReportsEveryBudgetAndGrowthIsAdmitted() {
    limiter.tryAcquire("o/a", "api", 1);
    limiter.tryAcquire("o/b", "api", 1);
    clock.runDue();
    fake.answerGrant(0, 1, 10, 0, 3_000, 60_000);
    fake.answerGrant(1, 2, 10, 0, 3_000, 60_000);
    clock.runDue();
    assertTrue(limiter.tryAcquire("o/a", "api", 8));
    clock.advance(Duration.ofMillis(1_000)); // lease/3
    assertEquals(1, fake.reports.size(), "one request for both budgets");
    List<BudgetReport> sent = fake.reportsOf(0);
    assertEquals(2, sent.size());
    BudgetReport a = sent.stream().filter(r -> r.budgetId() == 1).findFirst().orElseThrow();
    assertEquals(8, a.spent());
    assertEquals(1, a.sequence());
    assertEquals(8 + 16, a.wantAmount(), "spend plus twice the period's spend");
    BudgetReport b = sent.stream().filter(r -> r.budgetId() == 2).findFirst().orElseThrow();
    assertEquals(5, b.wantAmount(), "an idle budget asks for its cushion only");
    assertEquals(5, limiter.available("o/b", "api"), "capped to the cushion before the report");
    fake.answerReports(0, List.of(
        renewed(sent.get(0).budgetId(), sent.get(0).budgetId() == 1 ? 24 : 5,
            sent.get(0).spent(), 1_000, 3_000, 60_000, false),
        renewed(sent.get(1).budgetId(), sent.get(1).budgetId() == 1 ? 24 : 5,
            sent.get(1).spent(), 1_000, 3_000, 60_000, false)));
    clock.runDue();
    assertEquals(16, limiter.available("o/a", "api"), "24 granted, 8 spent");
    clock.advance(Duration.ofMillis(2_934));
    assertTrue(limiter.tryAcquire("o/a", "api", 1), "renewed from the round's send at 1 s");
    clock.advance(Duration.ofMillis(1));
    assertFalse(limiter.tryAcquire("o/a", "api", 1), "until 1 s + 2,935 ms, later rounds unanswered");
  }

  /** Goal: a budget the ledger says ended is returned with its final spend and replaced. */
  @Test
  void anEndedBudgetIsReturnedWithItsFinalSpendAndReplaced() {
    holding("o", 7, 10, 0, 3_000, 60_000);
    assertTrue(limiter.tryAcquire("o", "api", 6));
    clock.advance(Duration.ofMillis(1_000));
    BudgetReport r = fake.reportsOf(0).get(0);
    fake.answerReports(0, List.of(renewed(7, 10, r.spent(), 1_000, 3_000, 60_000, true)));
    clock.runDue();
    assertEquals(1, fake.returns.size());
    assertEquals(7, fake.returns.get(0)[0]);
    assertEquals(6, fake.returns.get(0)[1]);
    assertEquals(2, fake.returns.get(0)[2], "a sequence above the report's");
    assertEquals(2, fake.grants.size(), "a new budget asked for");
    assertEquals(10L, fake.grants.get(1)[2]);
    assertFalse(limiter.tryAcquire("o", "api", 1), "nothing admitted from the ended one");
  }

  /** Goal: a budget whose lease ends with its window is replaced when the window ends. */
  @Test
  void aBudgetEndingWithItsWindowIsReplacedThen() {
    limiter.tryAcquire("o", "api", 1);
    clock.runDue();
    fake.answerGrant(0, 7, 10, 59_000, 1_000, 60_000); // the lease runs to the window's end
    clock.runDue();
    assertTrue(limiter.tryAcquire("o", "api", 2));
    clock.advance(Duration.ofMillis(1_000));
    assertEquals(1, fake.returns.size(), "returned at its local end");
    assertEquals(2, fake.returns.get(0)[1]);
    assertEquals(2, fake.grants.size(), "the next window's budget asked for");
  }

  /**
   * Goal: a soft budget (overdraft E) admits up to E more in all once its renewal failed — after
   * its local expiry too, never past its window's local end — and the next report carries that
   * spend; a hard budget (E = 0) admits nothing past its grant or expiry.
   */
  @Test
  void aCutOffSoftBudgetOverdrawsAtMostItsOverdraftAndReportsIt() {
    limiter.tryAcquire("o/soft", "api", 1);
    limiter.tryAcquire("o/hard", "api", 1);
    clock.runDue();
    fake.answerGrant(0, 1, 10, 0, 3_000, 60_000, 4);
    fake.answerGrant(1, 2, 10, 0, 3_000, 60_000, 0);
    clock.runDue();
    assertTrue(limiter.tryAcquire("o/soft", "api", 10));
    assertFalse(limiter.tryAcquire("o/soft", "api", 1), "connected: no overdraft");
    clock.advance(Duration.ofMillis(1_000)); // the early round and round 1, lost
    fake.failPendingReports();
    clock.runDue();
    assertTrue(limiter.tryAcquire("o/soft", "api", 3), "cut off: overdraft");
    assertFalse(limiter.tryAcquire("o/soft", "api", 2), "3 of 4 used");
    clock.advance(Duration.ofMillis(1_000)); // round 2, lost
    assertEquals(13, fake.lastSpent(1), "the report carries the overdrawn spend");
    fake.failPendingReports();
    clock.advance(Duration.ofMillis(1_000)); // t = 3 s: past the local expiry; round 3 sent
    assertEquals(QuotaLimiter.Reason.EXPIRED, limiter.decide("o/hard", "api", 1).reason(),
        "hard: nothing past its expiry");
    assertTrue(limiter.tryAcquire("o/soft", "api", 1), "the overdraft outlives the lease");
    assertFalse(limiter.tryAcquire("o/soft", "api", 1), "E = 4 in all");
    assertEquals(4, limiter.overdrawnTotal());
    assertEquals(14, limiter.admittedTotal());
    fake.failPendingReports();
    clock.advance(Duration.ofMillis(1_000)); // round 4
    assertEquals(14, fake.lastSpent(1), "10 granted + 4 overdrawn");
    assertEquals(0, fake.lastSpent(2));
  }

  /**
   * Goal: a return that got no answer (cut off at the window's end) is sent again, with the same
   * spend and sequence, until one is answered, so its spend is still billed.
   */
  @Test
  void aReturnThatGotNoAnswerIsSentAgainUnchanged() {
    holding("o", 7, 10, 59_000, 1_000, 60_000);
    assertTrue(limiter.tryAcquire("o", "api", 4));
    fake.lostReturns = 2;
    clock.advance(Duration.ofMillis(1_000)); // its window ends: returned, twice lost
    clock.advance(Duration.ofMillis(1_000));
    assertEquals(3, fake.returns.size(), "sent until answered: " + fake.returns.size());
    for (long[] r : fake.returns) {
      assertEquals(List.of(7L, 4L, 1L), List.of(r[0], r[1], r[2]), "the same return each time");
    }
  }

  /**
   * Goal: close also waits for the return of a budget replaced before it (still being sent
   * again), so every spend is in the usage log once close completes.
   */
  @Test
  void closeWaitsForTheReturnOfABudgetReplacedBeforeIt() {
    holding("o", 7, 10, 59_000, 1_000, 60_000);
    assertTrue(limiter.tryAcquire("o", "api", 4));
    fake.lostReturns = 2;
    clock.advance(Duration.ofMillis(980)); // its window ends locally: returned, the answer lost
    assertEquals(1, fake.returns.size());
    CompletableFuture<Void> closing = limiter.closeAsync();
    assertFalse(closing.isDone(), "the replaced budget's return is still being sent");
    clock.advance(Duration.ofSeconds(1));
    assertEquals(3, fake.returns.size());
    assertTrue(closing.isDone());
  }

  /** Goal: close sends a return that got no answer again, and completes once one is answered. */
  @Test
  void closeResendsAReturnThatGotNoAnswer() {
    holding("o", 7, 10, 0, 3_000, 60_000);
    assertTrue(limiter.tryAcquire("o", "api", 3));
    fake.lostReturns = 1;
    CompletableFuture<Void> closing = limiter.closeAsync();
    assertFalse(closing.isDone(), "the first return was lost");
    clock.advance(Duration.ofSeconds(1));
    assertTrue(closing.isDone());
    assertEquals(2, fake.returns.size());
    assertEquals(List.of(7L, 3L, 1L), List.of(fake.returns.get(1)[0], fake.returns.get(1)[1],
        fake.returns.get(1)[2]));
  }

  /** Goal: an overdraft is never used past the window's local end. */
  @Test
  void anOverdraftStopsAtItsWindowsEnd() {
    holding("o", 1, 1, 0, 3_000, 4_000, 100);
    assertTrue(limiter.tryAcquire("o", "api", 1));
    clock.advance(Duration.ofMillis(1_000));
    fake.failPendingReports();
    clock.runDue();
    assertTrue(limiter.tryAcquire("o", "api", 1));
    long windowLocalEnd = (long) (4_000 * (1 - 0.02)) - 5; // 3,915 ms after the grant's send
    clock.advance(Duration.ofMillis(windowLocalEnd - 1_000 - 1));
    assertTrue(limiter.tryAcquire("o", "api", 1), "before the window's local end");
    clock.advance(Duration.ofMillis(1));
    assertFalse(limiter.tryAcquire("o", "api", 1), "the window is over: nothing to overdraw");
  }

  /** Goal: close stops admitting and returns every budget with its final spend. */
  @Test
  void closeReturnsEveryBudgetWithItsFinalSpend() {
    limiter.tryAcquire("o/a", "api", 1);
    limiter.tryAcquire("o/b", "jobs", 1);
    clock.runDue();
    fake.answerGrant(0, 1, 10, 0, 3_000, 60_000);
    fake.answerGrant(1, 2, 10, 0, 3_000, 60_000);
    clock.runDue();
    limiter.tryAcquire("o/a", "api", 3);
    limiter.close();
    assertFalse(limiter.tryAcquire("o/a", "api", 1));
    assertEquals(2, fake.returns.size());
    long spentA = fake.returns.stream().filter(x -> x[0] == 1).findFirst().orElseThrow()[1];
    long spentB = fake.returns.stream().filter(x -> x[0] == 2).findFirst().orElseThrow()[1];
    assertEquals(3, spentA);
    assertEquals(0, spentB);
  }

  /**
   * Goal: a budget that runs dry is renewed at once, alone, sized from its spending rate; one
   * early round at a time, however many checks find it dry.
   */
  @Test
  void aBudgetThatRunsDryIsRenewedAtOnce() {
    limiter.tryAcquire("o/a", "api", 1);
    limiter.tryAcquire("o/b", "api", 1);
    clock.runDue();
    fake.answerGrant(0, 1, 10, 0, 3_000, 60_000);
    fake.answerGrant(1, 2, 10, 0, 3_000, 60_000);
    clock.runDue();
    clock.advance(Duration.ofMillis(100));
    assertTrue(limiter.tryAcquire("o/a", "api", 10));
    assertFalse(limiter.tryAcquire("o/a", "api", 1));
    assertFalse(limiter.tryAcquire("o/a", "api", 1));
    clock.runDue();
    assertEquals(1, fake.reports.size(), "one early round");
    List<BudgetReport> sent = fake.reportsOf(0);
    assertEquals(List.of(1L), sent.stream().map(BudgetReport::budgetId).toList(), "the dry one only");
    assertEquals(10 + 2 * 10 * 10, sent.get(0).wantAmount(),
        "10 spent in 100 ms: twice that rate over a 1 s round");
    fake.answerReports(0, List.of(renewed(1, 210, 10, 100, 3_000, 60_000, false)));
    clock.runDue();
    assertTrue(limiter.tryAcquire("o/a", "api", 200));
  }

  /** Goal: the Micrometer meters read the limiter's figures: admitted, refused by reason, held. */
  @Test
  void metersReadTheLimitersFigures() {
    io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    new dev.ration.client.metrics.QuotaLimiterMetrics(limiter).bindTo(registry);
    holding("o", 7, 4, 0, 3_000, 60_000);
    limiter.tryAcquire("o", "api", 3);
    limiter.tryAcquire("o", "api", 3);
    assertEquals(3.0, registry.get("ration.client.quota.limiter.admitted").tag("holder", "eu-1")
        .functionCounter().count());
    assertEquals(1.0, registry.get("ration.client.quota.limiter.refused").tag("reason", "NO_BUDGET")
        .functionCounter().count());
    assertEquals(1.0, registry.get("ration.client.quota.limiter.refused").tag("reason", "EXHAUSTED")
        .functionCounter().count());
    assertEquals(1.0, registry.get("ration.client.quota.limiter.budgets").gauge().value());
  }
}
