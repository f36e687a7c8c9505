package dev.ration.statemachine.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.command.QuotaCommand.GrantBudget;
import dev.ration.statemachine.command.QuotaCommand.IngestUsage;
import dev.ration.statemachine.command.QuotaCommand.Reconcile;
import dev.ration.statemachine.command.QuotaCommand.ReportBudget;
import dev.ration.statemachine.command.QuotaCommand.ReturnBudget;
import dev.ration.statemachine.command.QuotaCommand.SetQuota;
import dev.ration.statemachine.query.QuotaAnswer;
import dev.ration.statemachine.query.QuotaQuery;
import dev.ration.statemachine.result.QuotaResult;
import dev.ration.wire.EventType;
import dev.ration.wire.Outcome;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import dev.ration.wire.quota.Drift;
import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.quota.UsageEvent;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Budgets on a real replica (RocksDB, Tick, the expiry index; every invariant verified after each
 * entry), one rule per test: what a grant gets at three levels, what a report bills, when a
 * budget stops admitting, and what a return gives back.
 */
class BudgetsTest {
  @TempDir Path dir;
  private QuotaHarness h;

  @BeforeEach
  void open() {
    h = new QuotaHarness(dir);
    h.nowMillis = 3_600_000; // an hour boundary: minute windows start here
    h.apply(rate("org", Window.HOUR, 10));
    h.apply(rate("org/t", Window.MINUTE, 6));
    h.apply(rate("org/t/p", Window.MINUTE, 4));
  }

  @AfterEach
  void close() {
    h.close();
  }

  /** Goal: a grant gets what every level still admits, counted at all of them at once. */
  @Test
  void aGrantGetsWhatEveryLevelAdmitsAndCountsAtEach() {
    QuotaResult.BudgetGranted first = granted(h.apply(
        new GrantBudget("eu-1", "org/t/p", "api", 9, 10_000)));
    assertEquals(4, first.granted(), "the project's 4 is the tightest");
    assertEquals(3_610_000, first.expiresAtMillis());
    assertEquals(3_660_000, first.windowEndMillis(), "the minute ends first");
    assertEquals(4, h.usage("org", "api").windowUsed());
    assertEquals(4, h.usage("org/t", "api").windowUsed());
    assertEquals(4, h.usage("org/t/p", "api").windowUsed());
    QuotaResult.BudgetGranted second = granted(h.apply(
        new GrantBudget("eu-2", "org/t/q", "api", 9, 10_000)));
    assertEquals(2, second.granted(), "the tenant has 2 left; org/t/q has no entry of its own");
    QuotaResult.QuotaRejected none = QuotaHarness.rejected(h.apply(
        new GrantBudget("eu-3", "org/t/p", "api", 1, 10_000)));
    assertEquals(Outcome.LIMIT_EXHAUSTED, none.outcome());
    assertEquals("org/t", none.levelScope(), "the first level, from the top, with nothing left");
    assertEquals(60_000, none.retryAfterMillis(), "until the minute rolls over");
    h.nowMillis += 60_000;
    h.tick(); // the earlier budgets' leases ended: they lapse, and want nothing more
    assertEquals(4, granted(h.apply(new GrantBudget("eu-3", "org/t/p", "api", 9, 10_000))).granted(),
        "a new minute starts with fresh budgets; the hour still has 4 of 10 left");
  }

  /** Goal: bad arguments and quotas budgets cannot count are refused definitely, changing nothing. */
  @Test
  void badGrantsAreRefusedAndChangeNothing() {
    h.apply(new SetQuota(new QuotaSpec("org/disk", "bytes", QuotaKind.ALLOCATION, Window.NONE, 5,
        "bytes", 0, Overage.REJECT, 0, 0, 0, "test", 0, "setup")));
    assertEquals("quota org/disk bytes is ALLOCATION: budgets count RATE, CUMULATIVE and"
            + " CONCURRENT quotas (reserve ALLOCATION amounts)",
        invalid(h.apply(new GrantBudget("eu-1", "org/disk", "bytes", 1, 10_000))));
    h.apply(new SetQuota(new QuotaSpec("org/t", "jobs", QuotaKind.CONCURRENT, Window.NONE, 5,
        "jobs", 0, Overage.REJECT, 0, 0, 0, "test", 0, "setup")));
    h.apply(new SetQuota(new QuotaSpec("org/t/p", "jobs", QuotaKind.RATE, Window.MINUTE, 5,
        "jobs", 0, Overage.REJECT, 0, 0, 0, "test", 0, "setup")));
    assertTrue(invalid(h.apply(new GrantBudget("eu-1", "org/t/p", "jobs", 1, 10_000)))
        .startsWith("quotas of jobs on org/t/p mix CONCURRENT and windowed kinds"));
    assertEquals("leaseMillis 50 outside [100, 600000]",
        invalid(h.apply(new GrantBudget("eu-1", "org/t/p", "api", 1, 50))));
    assertTrue(invalid(h.apply(new GrantBudget("eu-1", "org/t/p", "api", 0, 10_000)))
        .startsWith("amount"));
    assertEquals(Outcome.LIMIT_UNKNOWN, QuotaHarness.rejected(
        h.apply(new GrantBudget("eu-1", "org/t/p", "storage", 1, 10_000))).outcome());
    assertEquals(0, h.usage("org/t/p", "api").windowUsed());
    assertEquals(Outcome.BUDGET_UNKNOWN, QuotaHarness.rejected(
        h.apply(new ReportBudget(77, 0, 1, 1, 10_000))).outcome());
  }

  /**
   * Goal: each report bills the spend new since the last one counted, once; a resent report
   * counts nothing; spend never goes down nor beyond the grant.
   */
  @Test
  void reportsBillNewSpendOnceAndResentReportsCountNothing() {
    long id = granted(h.apply(new GrantBudget("eu-1", "org/t/p", "api", 4, 10_000))).budgetId();
    h.nowMillis += 1_000;
    QuotaResult.BudgetReported r1 = reported(h.apply(new ReportBudget(id, 3, 1, 4, 10_000)));
    assertEquals(3, r1.spent());
    assertFalse(r1.ended());
    assertEquals(3_611_000, r1.expiresAtMillis(), "renewed from now");
    QuotaResult.BudgetReported again = reported(h.apply(new ReportBudget(id, 3, 1, 4, 10_000)));
    assertTrue(again.resent());
    assertEquals(0, again.eventSequence());
    reported(h.apply(new ReportBudget(id, 4, 2, 4, 10_000)));
    List<UsageEvent> spent = h.log().stream().filter(e -> e.type() == EventType.BUDGET_SPENT).toList();
    assertEquals(List.of(3L, 1L), spent.stream().map(UsageEvent::quantity).toList());
    assertEquals(3_600_000, spent.get(0).eventTimeMillis(), "inside every window it was charged in");
    assertEquals("budget " + id + ": spent is cumulative and was 4, this report says 2",
        invalid(h.apply(new ReportBudget(id, 2, 3, 4, 10_000))));
    assertEquals("budget " + id + ": spent 5 exceeds granted 4",
        invalid(h.apply(new ReportBudget(id, 5, 3, 4, 10_000))));
  }

  /** Goal: a renewal grows a budget from what every level has free, and shrinks it to what was spent at least. */
  @Test
  void aRenewalGrowsFromFreeCapacityAndShrinksNoLowerThanTheSpend() {
    long id = granted(h.apply(new GrantBudget("eu-1", "org/t/p", "api", 1, 10_000))).budgetId();
    assertEquals(4, reported(h.apply(new ReportBudget(id, 1, 1, 8, 10_000))).granted(),
        "grown to the project's capacity");
    assertEquals(2, reported(h.apply(new ReportBudget(id, 2, 2, 0, 10_000))).granted(),
        "shrunk to the spend");
    assertEquals(2, h.usage("org/t/p", "api").windowUsed());
    assertEquals(2, h.usage("org", "api").windowUsed());
  }

  /**
   * Goal: a budget whose lease lapsed admits nothing, keeps its whole grant counted (the holder
   * may have spent it unreported), still bills a late report, and a late return gives back
   * what it did not spend while the window lasts.
   */
  @Test
  void aLapsedBudgetStaysCountedBillsLateReportsAndGivesBackOnReturn() {
    long id = granted(h.apply(new GrantBudget("eu-1", "org/t/p", "api", 4, 1_000))).budgetId();
    h.nowMillis += 5_000;
    h.tick();
    assertEquals(4, h.usage("org/t/p", "api").windowUsed(), "lapsed, still counted");
    QuotaResult.BudgetReported late = reported(h.apply(new ReportBudget(id, 1, 1, 4, 10_000)));
    assertTrue(late.ended());
    assertEquals(3_601_000, late.expiresAtMillis(), "not renewed");
    QuotaResult.BudgetReturned back = assertInstanceOf(QuotaResult.BudgetReturned.class,
        h.apply(new ReturnBudget(id, 2, 2)));
    assertEquals(2, back.spent());
    assertEquals(2, back.released());
    assertEquals(2, h.usage("org/t/p", "api").windowUsed());
    assertEquals(2, h.usage("org", "api").windowUsed());
    assertEquals(2L, h.log().stream().filter(e -> e.type() == EventType.BUDGET_SPENT)
        .mapToLong(UsageEvent::quantity).sum());
    assertEquals(Outcome.BUDGET_UNKNOWN, QuotaHarness.rejected(
        h.apply(new ReturnBudget(id, 2, 3))).outcome(), "returned once");
  }

  /**
   * Goal: a budget ends with its earliest window; a return after that gives back only to the
   * windows still running, and a lapsed budget is dropped once its latest window ended.
   */
  @Test
  void windowsEndBudgetsAndDropThemWhenTheLastEnds() {
    long id = granted(h.apply(new GrantBudget("eu-1", "org/t/p", "api", 4, 600_000))).budgetId();
    h.nowMillis += 61_000;
    h.tick();
    assertEquals(4, h.usage("org", "api").windowUsed(), "the hour still counts it");
    QuotaResult.BudgetReturned back = assertInstanceOf(QuotaResult.BudgetReturned.class,
        h.apply(new ReturnBudget(id, 1, 1)));
    assertEquals(3, back.released());
    assertEquals(1, h.usage("org", "api").windowUsed(), "the hour got the unspent 3 back");
    long other = granted(h.apply(new GrantBudget("eu-2", "org/t/p", "api", 2, 600_000))).budgetId();
    h.nowMillis += 3_600_000;
    h.tick(); // lapses at its minute's end
    h.tick(); // dropped: its hour ended too
    assertEquals(Outcome.BUDGET_UNKNOWN, QuotaHarness.rejected(
        h.apply(new ReportBudget(other, 1, 1, 2, 10_000))).outcome());
  }

  /**
   * Goal: an entry whose window is changed while a budget is held ends that budget at its next
   * report (it cannot grow or shrink across windows), without stopping the replica; its return
   * gives nothing back to the level's new window.
   */
  @Test
  void aWindowChangedUnderAHeldBudgetEndsIt() {
    long id = granted(h.apply(new GrantBudget("eu-1", "org/t/p", "api", 3, 30_000))).budgetId();
    h.nowMillis += 1_000;
    h.apply(rate("org/t/p", Window.DAY, 4)); // the day began at 0, the minute at 3,600,000
    QuotaResult.BudgetReported r = reported(h.apply(new ReportBudget(id, 1, 1, 8, 30_000)));
    assertTrue(r.ended(), r.toString());
    assertEquals(3, r.granted(), "neither grown nor shrunk");
    assertEquals(0, h.usage("org/t/p", "api").windowUsed(), "the new window starts empty");
    QuotaResult.BudgetReturned back = assertInstanceOf(QuotaResult.BudgetReturned.class,
        h.apply(new ReturnBudget(id, 1, 2)));
    assertEquals(1, h.usage("org/t", "api").windowUsed(), "the tenant's minute got 2 back");
    assertEquals(0, h.usage("org/t/p", "api").windowUsed(), "nothing given to the new window");
    assertEquals(2, back.released());
  }

  /**
   * Goal: a budget whose every level is a soft quota (OVERDRAFT) carries the smallest level's
   * overdraft E; a report may say up to E more than granted, once in all: that part is counted
   * at every level (past the limit) and billed as overage; a hard level anywhere on the path
   * makes the overdraft 0.
   */
  @Test
  void aSoftBudgetMayBeOverdrawnByItsOverdraftOnceCountedAndBilledAsOverage() {
    h.apply(soft("org", Window.HOUR, 10, 5));
    h.apply(soft("org/t", Window.MINUTE, 6, 3));
    h.apply(soft("org/t/p", Window.MINUTE, 4, 4));
    QuotaResult.BudgetGranted g = granted(h.apply(new GrantBudget("eu-1", "org/t/p", "api", 4, 1_000)));
    assertEquals(3, g.overdraft(), "the smallest E on the path");
    h.nowMillis += 5_000;
    h.tick(); // lapsed: the holder was cut off and overdrew
    QuotaResult.BudgetReported late = reported(h.apply(new ReportBudget(g.budgetId(), 6, 1, 0, 10_000)));
    assertEquals(6, late.granted(), "the overdraft counted as granted");
    assertEquals(6, h.usage("org/t/p", "api").windowUsed(), "past the project's limit of 4");
    assertEquals(6, h.usage("org/t", "api").windowUsed());
    assertEquals(6, h.usage("org", "api").windowUsed());
    UsageEvent billed = h.log().stream().filter(e -> e.type() == EventType.BUDGET_SPENT)
        .reduce((a, b) -> b).orElseThrow();
    assertEquals(6, billed.quantity());
    assertEquals(2, billed.overage(), "the part past the grant is overage");
    assertEquals("budget " + g.budgetId() + ": spent 8 exceeds granted 6 plus the overdraft left 1",
        invalid(h.apply(new ReportBudget(g.budgetId(), 8, 2, 0, 10_000))));
    QuotaResult.BudgetReturned back = assertInstanceOf(QuotaResult.BudgetReturned.class,
        h.apply(new ReturnBudget(g.budgetId(), 7, 3)));
    assertEquals(7, back.spent());
    assertEquals(0, back.released());
    assertEquals(7, h.usage("org/t", "api").windowUsed(), "limit 6 + the one overdraft of 3 at most");
    assertEquals(Outcome.LIMIT_EXHAUSTED, QuotaHarness.rejected(
        h.apply(new GrantBudget("eu-2", "org/t/p", "api", 1, 1_000))).outcome(),
        "an overdrawn level grants nothing more this window");
    h.apply(rate("org/t", Window.MINUTE, 100)); // one hard level on the path
    h.nowMillis += 60_000;
    QuotaResult.BudgetGranted hard = granted(h.apply(new GrantBudget("eu-2", "org/t/p", "api", 2, 1_000)));
    assertEquals(0, hard.overdraft());
    assertEquals("budget " + hard.budgetId() + ": spent 3 exceeds granted 2",
        invalid(h.apply(new ReportBudget(hard.budgetId(), 3, 1, 0, 10_000))));
  }

  /**
   * Goal: a soft threshold fires from what holders reported spending, not from what budgets hold:
   * a grant up to the limit raises nothing; the report that takes the reported spend to the
   * threshold raises one ALERT; a reservation is judged on usage less what budgets hold unspent.
   */
  @Test
  void softThresholdsFireFromReportedSpendNotFromGrants() {
    h.apply(new SetQuota(new QuotaSpec("org/t/p", "api", QuotaKind.RATE, Window.MINUTE, 4,
        "requests", 3, Overage.REJECT, 0, 0, 0, "test", 0, "soft 3")));
    long id = granted(h.apply(new GrantBudget("eu-1", "org/t/p", "api", 4, 10_000))).budgetId();
    assertEquals(0, alerts(), "4 granted, nothing spent");
    reported(h.apply(new ReportBudget(id, 2, 1, 2, 10_000)));
    assertEquals(0, alerts(), "2 reported, threshold 3");
    assertEquals(2, h.usage("org/t/p", "api").windowUsed(), "shrunk to the spend");
    reported(h.apply(new ReportBudget(id, 2, 2, 2, 10_000)));
    assertEquals(0, alerts());
    QuotaResult.BudgetReturned back = assertInstanceOf(QuotaResult.BudgetReturned.class,
        h.apply(new ReturnBudget(id, 2, 3)));
    assertEquals(0, back.released());
    long other = granted(h.apply(new GrantBudget("eu-2", "org/t/p", "api", 2, 10_000))).budgetId();
    assertEquals(0, alerts(), "usage 4 of which 2 unspent: reported 2");
    reported(h.apply(new ReportBudget(other, 1, 1, 2, 10_000)));
    List<UsageEvent> alerts = h.log().stream().filter(e -> e.type() == EventType.ALERT).toList();
    assertEquals(1, alerts.size(), "reported spend reached 3");
    assertEquals(3, alerts.get(0).quantity());
    assertEquals("org/t/p", alerts.get(0).scope());
    reported(h.apply(new ReportBudget(other, 2, 2, 2, 10_000)));
    assertEquals(1, alerts(), "once per window");
  }

  /**
   * Goal: reconciliation compares each kept budget's reported spend with its usage events; a
   * service that also reported the same work against the budget's id is a drift, repaired with
   * one compensating event dated in the budget's window, never by editing the log.
   */
  @Test
  void reconciliationComparesABudgetsSpendWithItsEventsAndRepairsADrift() {
    long id = granted(h.apply(new GrantBudget("eu-1", "org/t/p", "api", 4, 10_000))).budgetId();
    reported(h.apply(new ReportBudget(id, 2, 1, 4, 10_000)));
    reported(h.apply(new ReportBudget(id, 3, 2, 4, 10_000)));
    QuotaQuery.ReconcileReport ask = new QuotaQuery.ReconcileReport("org/t/p", "api", 0,
        h.nowMillis + 1);
    assertEquals(List.of(), ((QuotaAnswer.ReconcileAnswer) h.query(ask)).drifts(),
        "two reports, two events, 3 in all");
    h.apply(new IngestUsage("svc-dup", h.nowMillis, "org/t/p", "api", 2, "requests", id));
    List<Drift> drifts = ((QuotaAnswer.ReconcileAnswer) h.query(ask)).drifts();
    assertEquals(List.of(new Drift(Drift.BUDGET, "org/t/p", "api", id, 0, 3, 5, 0)), drifts);
    int before = h.log().size();
    QuotaResult.Reconciled fixed = assertInstanceOf(QuotaResult.Reconciled.class, h.apply(
        new Reconcile("org/t/p", "api", 0, h.nowMillis + 1, "ops", "double report")));
    UsageEvent compensation = h.log().get((int) fixed.drifts().get(0).compensationSequence() - 1);
    assertEquals(EventType.COMPENSATION, compensation.type());
    assertEquals(-2, compensation.quantity());
    assertEquals(3_600_000, compensation.eventTimeMillis(), "in the budget's window");
    assertEquals(before + 1, h.log().size(), "repair appends, never edits");
    assertEquals(List.of(), ((QuotaAnswer.ReconcileAnswer) h.query(ask)).drifts());
  }

  private long alerts() {
    return h.log().stream().filter(e -> e.type() == EventType.ALERT).count();
  }

  /**
   * Goal: a holder that reconnects after its shortest window rolled reports its overdraft: the
   * ledger counts it where the window still runs (the hour), bills it, and its tallies stay
   * exact (verify() after the entry) — no level's tally goes negative.
   */
  @Test
  void anOverdraftReportedAfterTheShortestWindowRolledIsCountedWhereItStillRuns() {
    h.apply(soft("org", Window.HOUR, 10, 5));
    h.apply(soft("org/t", Window.MINUTE, 6, 5));
    h.apply(soft("org/t/p", Window.MINUTE, 4, 5));
    QuotaResult.BudgetGranted g = granted(h.apply(new GrantBudget("eu-1", "org/t/p", "api", 4, 1_000)));
    h.nowMillis += 61_000; // the minute rolled, the hour runs on
    h.tick();
    QuotaResult.BudgetReported late = reported(h.apply(new ReportBudget(g.budgetId(), 9, 1, 0, 10_000)));
    assertTrue(late.ended());
    assertEquals(9, late.granted());
    assertEquals(9, h.usage("org", "api").windowUsed(), "4 granted + 5 overdrawn, in the hour");
    assertEquals(0, h.usage("org/t", "api").windowUsed(), "a new minute: nothing of the old one");
    QuotaResult.BudgetReturned back = assertInstanceOf(QuotaResult.BudgetReturned.class,
        h.apply(new ReturnBudget(g.budgetId(), 9, 2)));
    assertEquals(0, back.released());
    assertEquals(9, h.usage("org", "api").windowUsed());
  }

  /** Goal: OVERDRAFT is refused for the kinds budgets do not count, and without an overdraft. */
  @Test
  void overdraftIsOnlyForWindowedQuotasWithAnAmount() {
    assertEquals("overage policy OVERDRAFT is for RATE and CUMULATIVE quotas (budgets overdraw "
            + "them); CONCURRENT takes REJECT or ALLOW",
        invalid(h.apply(new SetQuota(new QuotaSpec("org/jobs", "slots", QuotaKind.CONCURRENT,
            Window.NONE, 5, "jobs", 0, Overage.OVERDRAFT, 1, 0, 0, "test", 0, "setup")))));
    assertTrue(invalid(h.apply(soft("org", Window.HOUR, 10, 0))).startsWith("overageMax"));
  }

  /**
   * Goal: where what holders still want exceeds what a level has unspent, growth is shared:
   * a newcomer gets its part, not all that is free, and an incumbent grows only to its part.
   */
  @Test
  void aContendedLevelSharesGrowthByWhatHoldersWant() {
    h.apply(rate("org/u", Window.MINUTE, 10));
    long a = granted(h.apply(new GrantBudget("a", "org/u", "api", 8, 10_000))).budgetId();
    long b = granted(h.apply(new GrantBudget("b", "org/u", "api", 10, 10_000))).budgetId();
    assertEquals(2, h.usage("org/u", "api").windowUsed() - 8, "b got what was free");
    returned(h.apply(new ReturnBudget(a, 3, 1)));
    QuotaResult.BudgetGranted c = granted(h.apply(new GrantBudget("c", "org/u", "api", 10, 10_000)));
    assertEquals(4, c.granted(), "7 unspent (5 free, 2 held by b), b and c want 10 each: half, "
        + "rounded up, though 5 are free");
    QuotaResult.BudgetReported grown = reported(h.apply(new ReportBudget(b, 0, 1, 10, 10_000)));
    assertEquals(3, grown.granted(), "b grows by the 1 left free, toward its part of 4");
    assertEquals(10, h.usage("org/u", "api").windowUsed());
  }

  /**
   * Goal: a budget that lapses on a resent report after its last window ended, before any Tick,
   * is forgotten then, as the Tick would have (every entry is verified: the level's tallies and
   * the stored budgets agree throughout); a later return finds it gone.
   */
  @Test
  void aBudgetLapsedByAResentReportAfterItsWindowIsCountedOnce() {
    h.apply(new SetQuota(new QuotaSpec("solo", "api", QuotaKind.RATE, Window.MINUTE, 10,
        "requests", 0, Overage.REJECT, 0, 0, 0, "test", 0, "setup")));
    h.nowMillis = 3_655_000;
    QuotaResult.BudgetGranted g = granted(h.apply(new GrantBudget("a", "solo", "api", 5, 10_000)));
    assertEquals(3_660_000, g.expiresAtMillis(), "capped at the minute's end, its only window");
    reported(h.apply(new ReportBudget(g.budgetId(), 1, 1, 5, 10_000)));
    h.nowMillis = 3_661_000;
    assertTrue(reported(h.apply(new ReportBudget(g.budgetId(), 1, 1, 5, 10_000))).resent());
    assertEquals(Outcome.BUDGET_UNKNOWN, QuotaHarness.rejected(
        h.apply(new ReturnBudget(g.budgetId(), 2, 2))).outcome());
    h.tick();
  }

  /** Goal: holders asking for the most an amount may be cannot overflow a level's demand. */
  @Test
  void hugeWantsDoNotOverflowTheDemandTally() {
    h.apply(rate("org/u", Window.MINUTE, 10));
    for (int i = 0; i < 12; i++) {
      QuotaResult r = h.apply(new GrantBudget("h" + i, "org/u", "api", QuotaLedger.MAX_AMOUNT,
          10_000));
      assertTrue(r instanceof QuotaResult.BudgetGranted
          || QuotaHarness.rejected(r).outcome() == Outcome.LIMIT_EXHAUSTED, r.toString());
    }
    assertEquals(10, h.usage("org/u", "api").windowUsed());
  }

  /** Goal: the share rule itself: all of it uncontended, else an equal or weighted part. */
  @Test
  void theShareIsTheLargerOfAnEqualAndAWeightedPart() {
    assertEquals(7, Budgets.share(10, 2, 7, 9), "the demand fits: all it wants");
    assertEquals(5, Budgets.share(10, 2, 10, 20), "two equal demands: half each");
    assertEquals(10, Budgets.share(10, 2, 10, 11), "a large demand beside a small one: its weight, 9.1 rounded up");
    assertEquals(1, Budgets.share(10, 2, 1, 11), "a small one gets what it wants");
    assertEquals(4, Budgets.share(10, 3, 4, 30), "capped by what it wants");
    assertEquals(4, Budgets.share(10, 3, 10, 30), "ten over three, rounded up");
  }

  /** Goal: the budget state survives a restart byte for byte, expiry records included. */
  @Test
  void budgetsSurviveAReopen() {
    long id = granted(h.apply(new GrantBudget("eu-1", "org/t/p", "api", 3, 10_000))).budgetId();
    reported(h.apply(new ReportBudget(id, 1, 1, 3, 10_000)));
    byte[] before = h.canonical();
    h.reopen();
    assertEquals(java.util.HexFormat.of().formatHex(before), java.util.HexFormat.of().formatHex(h.canonical()));
    h.nowMillis += 20_000;
    h.tick();
    assertTrue(reported(h.apply(new ReportBudget(id, 1, 2, 3, 10_000))).ended());
  }

  private static SetQuota rate(String scope, Window window, long limit) {
    return new SetQuota(new QuotaSpec(scope, "api", QuotaKind.RATE, window, limit, "requests", 0,
        Overage.REJECT, 0, 0, 0, "test", 0, "setup"));
  }

  private static SetQuota soft(String scope, Window window, long limit, long overdraft) {
    return new SetQuota(new QuotaSpec(scope, "api", QuotaKind.RATE, window, limit, "requests", 0,
        Overage.OVERDRAFT, overdraft, 0, 0, "test", 0, "setup"));
  }

  private static QuotaResult.BudgetGranted granted(QuotaResult r) {
    return assertInstanceOf(QuotaResult.BudgetGranted.class, r, r.toString());
  }

  private static QuotaResult.BudgetReported reported(QuotaResult r) {
    return assertInstanceOf(QuotaResult.BudgetReported.class, r, r.toString());
  }

  private static QuotaResult.BudgetReturned returned(QuotaResult r) {
    return assertInstanceOf(QuotaResult.BudgetReturned.class, r, r.toString());
  }

  private static String invalid(QuotaResult r) {
    QuotaResult.QuotaRejected no = QuotaHarness.rejected(r);
    assertEquals(Outcome.INVALID_ARGUMENT, no.outcome(), no.message());
    return no.message();
  }
}
