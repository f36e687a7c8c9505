package dev.ration.statemachine.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.command.QuotaCommand.GrantBudget;
import dev.ration.statemachine.command.QuotaCommand.Reconcile;
import dev.ration.statemachine.command.QuotaCommand.ReportBudget;
import dev.ration.statemachine.command.QuotaCommand.ReturnBudget;
import dev.ration.statemachine.command.QuotaCommand.SetQuota;
import dev.ration.statemachine.query.Budget;
import dev.ration.statemachine.result.QuotaResult;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.EventType;
import dev.ration.wire.Outcome;
import dev.ration.wire.quota.UsageEvent;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Slot budgets (budgets of CONCURRENT quotas) on a real replica, every invariant verified after
 * each entry: what a grant counts at three levels, how a report's promise resizes it, what it
 * bills, and what its lapse and its return free.
 */
class SlotBudgetsTest {
  @TempDir Path dir;
  private QuotaHarness h;

  @BeforeEach
  void open() {
    h = new QuotaHarness(dir);
    h.nowMillis = 1_000_000;
    h.apply(QuotaHarness.concurrent("org", "jobs", 10));
    h.apply(QuotaHarness.concurrent("org/t", "jobs", 6));
    h.apply(QuotaHarness.concurrent("org/t/p", "jobs", 4));
  }

  @AfterEach
  void close() {
    h.close();
  }

  /** Goal: a grant gets the free slots of every level, held at all of them, shared with reservations. */
  @Test
  void aGrantHoldsWhatEveryLevelHasFree() {
    QuotaResult.BudgetGranted first = granted(h.apply(new GrantBudget("pool-1", "org/t/p", "jobs", 9, 10_000)));
    assertEquals(4, first.granted(), "the project's 4 is the tightest");
    assertEquals(1_010_000, first.expiresAtMillis());
    assertEquals(Long.MAX_VALUE, first.windowEndMillis(), "slots have no window");
    assertEquals(4, h.usage("org", "jobs").held());
    assertEquals(4, h.usage("org/t", "jobs").held());
    assertEquals(4, h.usage("org/t/p", "jobs").held());
    QuotaHarness.reserved(h.apply(QuotaHarness.reserve("org/t/q", "jobs", 1)));
    assertEquals(1, granted(h.apply(new GrantBudget("pool-2", "org/t/q", "jobs", 9, 10_000))).granted(),
        "the tenant's 6 less 4 held by the budget and 1 by the reservation");
    QuotaResult.QuotaRejected none = QuotaHarness.rejected(
        h.apply(new GrantBudget("pool-3", "org/t/q", "jobs", 1, 10_000)));
    assertEquals(Outcome.LIMIT_EXHAUSTED, none.outcome());
    assertEquals("org/t", none.levelScope());
    assertEquals(Outcome.LIMIT_EXHAUSTED, QuotaHarness.rejected(
        h.apply(QuotaHarness.reserve("org/t/p", "jobs", 1))).outcome(),
        "a reservation sees the budgets' slots as held");
  }

  /**
   * Goal: a report's promise below the grant frees the slots above it at once; above it, the
   * grant grows only from what every level has free; the lease renews from the report.
   */
  @Test
  void aReportResizesToThePromise() {
    long a = granted(h.apply(new GrantBudget("pool-1", "org/t/p", "jobs", 4, 10_000))).budgetId();
    long b = granted(h.apply(new GrantBudget("pool-2", "org/t/q", "jobs", 2, 10_000))).budgetId();
    assertEquals(Outcome.LIMIT_EXHAUSTED, QuotaHarness.rejected(
        h.apply(new GrantBudget("pool-3", "org/t/q", "jobs", 1, 10_000))).outcome());
    h.nowMillis += 1_000;
    QuotaResult.BudgetReported shrunk = reported(h.apply(new ReportBudget(a, 0, 1, 1, 10_000)));
    assertEquals(1, shrunk.granted());
    assertEquals(1_011_000, shrunk.expiresAtMillis(), "renewed from the report");
    assertEquals(3, h.usage("org/t", "jobs").held());
    assertEquals(1, h.usage("org/t/p", "jobs").held());
    QuotaResult.BudgetReported grown = reported(h.apply(new ReportBudget(b, 0, 1, 9, 10_000)));
    assertEquals(5, grown.granted(), "2 + the tenant's 3 free slots");
    assertEquals(6, h.usage("org/t", "jobs").held());
    assertEquals(0, reported(h.apply(new ReportBudget(a, 0, 2, 0, 10_000))).granted(),
        "an idle holder keeps its lease with no slot");
    assertEquals(5, h.usage("org/t", "jobs").held(), "the idle holder's slot is free again");
  }

  /**
   * Goal: reports bill the jobs started since the last one counted, once, at the report's time;
   * starts are not bounded by the slots; a resent report counts nothing; starts never go down.
   */
  @Test
  void reportsBillJobsStartedOnce() {
    long id = granted(h.apply(new GrantBudget("pool-1", "org/t/p", "jobs", 2, 10_000))).budgetId();
    h.nowMillis += 500;
    reported(h.apply(new ReportBudget(id, 7, 1, 2, 10_000)));
    assertTrue(reported(h.apply(new ReportBudget(id, 7, 1, 2, 10_000))).resent());
    h.nowMillis += 500;
    reported(h.apply(new ReportBudget(id, 10, 2, 2, 10_000)));
    List<UsageEvent> spent = h.log().stream().filter(e -> e.type() == EventType.BUDGET_SPENT).toList();
    assertEquals(List.of(7L, 3L), spent.stream().map(UsageEvent::quantity).toList());
    assertEquals(List.of(1_000_500L, 1_001_000L),
        spent.stream().map(UsageEvent::eventTimeMillis).toList(), "at each report's time");
    assertEquals(QuotaResult.QuotaRejected.class, h.apply(new ReportBudget(id, 9, 3, 2, 10_000)).getClass());
    assertTrue(QuotaHarness.rejected(h.apply(new ReportBudget(id, 9, 3, 2, 10_000))).message()
        .contains("cumulative and was 10"));
    QuotaResult.Reconciled rec = assertInstanceOf(QuotaResult.Reconciled.class,
        h.apply(new Reconcile("org/t/p", "jobs", 0, h.nowMillis + 1, "ops", "check")));
    assertTrue(rec.drifts().isEmpty(), rec.drifts().toString());
  }

  /**
   * Goal: at the lease's end the slots are free at every level; a late report is billed but
   * renews nothing; a late return frees nothing more; the record goes after the keep time.
   */
  @Test
  void aLapseFreesTheSlotsAndLateReportsAreStillBilled() {
    long id = granted(h.apply(new GrantBudget("pool-1", "org/t/p", "jobs", 4, 10_000))).budgetId();
    h.nowMillis += 10_000;
    h.tick();
    assertEquals(4, h.usage("org/t/p", "jobs").held(), "counted through the grace after the end");
    QuotaResult.BudgetReported over = reported(h.apply(new ReportBudget(id, 0, 1, 4, 10_000)));
    assertTrue(over.ended(), "a report after the lease's end renews nothing");
    assertEquals(1_010_000, over.expiresAtMillis());
    h.nowMillis += Budget.SLOT_GRACE_MILLIS;
    h.tick();
    assertEquals(0, h.usage("org", "jobs").held());
    assertEquals(0, h.usage("org/t/p", "jobs").held());
    assertEquals(4, granted(h.apply(new GrantBudget("pool-2", "org/t/p", "jobs", 4, 10_000))).granted(),
        "another holder gets the freed slots");
    QuotaResult.BudgetReported late = reported(h.apply(new ReportBudget(id, 5, 2, 4, 10_000)));
    assertTrue(late.ended());
    assertEquals(1_010_000, late.expiresAtMillis(), "not renewed");
    assertEquals(4, h.usage("org/t/p", "jobs").held(), "the late report takes no slot");
    QuotaResult.BudgetReturned back = assertInstanceOf(QuotaResult.BudgetReturned.class,
        h.apply(new ReturnBudget(id, 6, 3)));
    assertEquals(0, back.released());
    assertEquals(6, back.spent());
    assertEquals(4, h.usage("org/t/p", "jobs").held());
    assertEquals(List.of(5L, 1L), h.log().stream().filter(e -> e.type() == EventType.BUDGET_SPENT)
        .map(UsageEvent::quantity).toList());
  }

  /** Goal: a lapsed budget nobody returns is dropped once the keep time has passed. */
  @Test
  void aLapsedBudgetIsDroppedAfterTheKeepTime() {
    long id = granted(h.apply(new GrantBudget("pool-1", "org/t/p", "jobs", 4, 10_000))).budgetId();
    h.nowMillis += 10_000 + Budget.SLOT_GRACE_MILLIS;
    h.tick();
    reported(h.apply(new ReportBudget(id, 1, 1, 4, 10_000)));
    h.nowMillis += SlotBudgets.KEEP_AFTER_LAPSE_MILLIS;
    h.tick();
    assertEquals(Outcome.BUDGET_UNKNOWN, QuotaHarness.rejected(
        h.apply(new ReportBudget(id, 2, 2, 4, 10_000))).outcome());
  }

  /**
   * Goal: a CONCURRENT entry added to a held budget's path ends the budget at its next report
   * (it is not counted there), and the holder's next grant counts at the new level too.
   */
  @Test
  void aLevelAddedToThePathEndsTheBudget() {
    long id = granted(h.apply(new GrantBudget("pool-1", "org/t/q", "jobs", 2, 10_000))).budgetId();
    h.apply(QuotaHarness.concurrent("org/t/q", "jobs", 1));
    QuotaResult.BudgetReported r = reported(h.apply(new ReportBudget(id, 0, 1, 2, 10_000)));
    assertTrue(r.ended(), "ended: the new level does not count it");
    h.nowMillis += Budget.SLOT_GRACE_MILLIS;
    h.tick();
    assertEquals(0, h.usage("org/t", "jobs").held(), "its slots freed after the grace");
    assertEquals(1, granted(h.apply(new GrantBudget("pool-1", "org/t/q", "jobs", 2, 10_000)))
        .granted(), "the new level's 1");
  }

  /** Goal: slots are granted up to the limit, never into an ALLOW entry's overage band. */
  @Test
  void slotsStopAtTheLimitNotTheOverageBand() {
    h.apply(new SetQuota(new QuotaSpec("org/w", "jobs", QuotaKind.CONCURRENT, Window.NONE, 2,
        "jobs", 0, Overage.ALLOW, 3, 0, 0, "test", 0, "setup")));
    assertEquals(2, granted(h.apply(new GrantBudget("pool-1", "org/w", "jobs", 9, 10_000))).granted());
    assertEquals(Outcome.LIMIT_EXHAUSTED, QuotaHarness.rejected(
        h.apply(new GrantBudget("pool-2", "org/w", "jobs", 1, 10_000))).outcome());
  }

  /** Goal: a return frees what the budget holds at every level and bills its last starts. */
  @Test
  void aReturnFreesTheSlotsAndBillsTheLastStarts() {
    long id = granted(h.apply(new GrantBudget("pool-1", "org/t/p", "jobs", 3, 10_000))).budgetId();
    QuotaResult.BudgetReturned back = assertInstanceOf(QuotaResult.BudgetReturned.class,
        h.apply(new ReturnBudget(id, 2, 1)));
    assertEquals(3, back.released());
    assertEquals(0, h.usage("org", "jobs").held());
    assertEquals(0, h.usage("org/t", "jobs").held());
    assertEquals(Outcome.BUDGET_UNKNOWN, QuotaHarness.rejected(
        h.apply(new ReturnBudget(id, 2, 1))).outcome());
    assertEquals(2L, h.log().stream().filter(e -> e.type() == EventType.BUDGET_SPENT)
        .mapToLong(UsageEvent::quantity).sum());
  }

  /** Goal: slot budgets survive a restart byte for byte, and a lowered cap frees nothing running. */
  @Test
  void slotBudgetsSurviveAReopenAndALoweredCap() {
    long id = granted(h.apply(new GrantBudget("pool-1", "org/t/p", "jobs", 4, 10_000))).budgetId();
    byte[] before = h.canonical();
    h.reopen();
    assertEquals(HexFormat.of().formatHex(before), HexFormat.of().formatHex(h.canonical()));
    h.apply(QuotaHarness.concurrent("org/t/p", "jobs", 2));
    QuotaResult.BudgetReported r = reported(h.apply(new ReportBudget(id, 0, 1, 4, 10_000)));
    assertEquals(4, r.granted(), "the promise keeps the running jobs' slots; none is added");
    assertFalse(r.ended());
    assertEquals(2, reported(h.apply(new ReportBudget(id, 0, 2, 2, 10_000))).granted());
    assertEquals(2, reported(h.apply(new ReportBudget(id, 0, 3, 3, 10_000))).granted(),
        "at the lowered cap it cannot grow again");
  }

  private static QuotaResult.BudgetGranted granted(QuotaResult r) {
    return assertInstanceOf(QuotaResult.BudgetGranted.class, r, r.toString());
  }

  private static QuotaResult.BudgetReported reported(QuotaResult r) {
    return assertInstanceOf(QuotaResult.BudgetReported.class, r, r.toString());
  }
}
