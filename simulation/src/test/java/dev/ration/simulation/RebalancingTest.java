package dev.ration.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * How fast rate shares follow demand with the real limiter on the real ledger
 * (docs/benchmarks.md, "Faster rebalancing"): after the shift the hot region admits at 90 % of
 * R within one lease duration, with zero excess over R·T + B. Prints the rows of the page.
 */
class RebalancingTest {
  @Test
  void hotRegionReachesNinetyPercentWithinOneLease() {
    System.out.println("| scenario | hot at 90 % R (admissions, 200 ms) | hot share ≥ 90 % R "
        + "| excess | ledger entries |");
    System.out.println("|---|---|---|---|---|");
    for (Scenario s : List.of(Scenarios.shift(), Scenarios.drift(),
        Scenarios.duplicatesAndReordering(), Scenarios.shift().withLimiter(0.5, 0.5, " (renew 0.5)"))) {
      Report r = Simulation.run(s);
      System.out.println(String.format(Locale.ROOT, "| %s | %s | %s | %d | %d |", r.scenario(),
          r.timeTo90(), r.shareTo90(), r.totalExcess(), r.ledgerEntries()));
      assertEquals(0, r.totalExcess(), s.name());
    }
    Report shift = Simulation.run(Scenarios.shift());
    assertTrue(shift.timeTo90Millis() >= 0 && shift.timeTo90Millis() <= 1_000,
        "hot region at 90 % of R after " + shift.timeTo90());
  }
}
