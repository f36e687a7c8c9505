package dev.ration.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * Quota budgets with demand moving between the projects of one tenant, then between tenants, and
 * one holder cut off in the last minute (docs/benchmarks.md, "Simulation (quota budgets)"): no
 * level admits past its limit in any minute; the hot project reaches 90 % of its demand (or of
 * what its levels have left) within one lease duration after each move; the usage log bills
 * exactly what the holders admitted, per project and minute. Prints the row of the benchmarks
 * page.
 */
class BudgetSimulationTest {
  @Test
  void demandMovesWithinOneLeaseNoLevelOversellsAndBillingIsExact() {
    BudgetSimulation.Setup setup = BudgetSimulation.moving();
    BudgetSimulation.Outcome o = BudgetSimulation.run(setup);
    System.out.println("| setup | most a level admitted in a minute / its limit | to 90 %, p1 → p2 "
        + "(same tenant) | to 90 %, t1 → t2 (other tenant) | t1's limit left in other budgets when it ran out | admitted | billed (events) | billed "
        + "(hour aggregates) | project-minutes billed ≠ admitted | ledger entries |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|");
    System.out.println(String.format(Locale.ROOT, "| %s | %.3f | %s | %s | %d | %d | %d | %d | %d | %d |",
        o.name(), o.worstPerMille() / 1000.0, inLeases(o.toP2Millis(), o),
        inLeases(o.toP3Millis(), o), o.strandedAtTenant(), o.admitted(), o.billed(), o.aggregated(),
        o.mismatchedWindows(), o.ledgerEntries()));
    assertTrue(o.worstPerMille() <= 1000, "a level admitted past its limit: " + o.worstPerMille());
    assertTrue(o.worstPerMille() >= 900, "the limits were meant to bind: " + o.worstPerMille());
    assertTrue(o.toP2Millis() <= o.leaseMillis(),
        "p2 at 90 % within one lease, not " + o.toP2Millis() + " ms");
    assertTrue(o.toP3Millis() <= o.leaseMillis(),
        "p3 at 90 % within one lease, not " + o.toP3Millis() + " ms");
    assertEquals(0, o.mismatchedWindows(), "billing differs from admissions");
    assertEquals(o.admitted(), o.billed());
    assertEquals(o.admitted(), o.aggregated());
  }

  @Test
  void replaysExactly() {
    BudgetSimulation.Setup shortRun = new BudgetSimulation.Setup("short", 2, 1_000, 5, 500, 3_000,
        2_000, 1_500, 80, 5, 3_000, 6_000, 7_000, 10_000);
    assertEquals(BudgetSimulation.run(shortRun), BudgetSimulation.run(shortRun));
  }

  private static String inLeases(long millis, BudgetSimulation.Outcome o) {
    return String.format(Locale.ROOT, "%d ms (%.2f L)", millis, millis / (double) o.leaseMillis());
  }
}
