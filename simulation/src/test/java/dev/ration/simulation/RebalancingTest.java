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

  /**
   * The shape `ration bench --op rebalance` measures on a real cluster: two regions, R =
   * 1,000/s, B = 1,000, L = 3 s, grace 1 s, fair-share, limiter defaults; region 0 offers 1.2 R
   * and region 1 20/s until 12 s, then they swap.
   */
  @Test
  void twoRegionsWithThreeSecondLeasesAsOnTheCluster() {
    Scenario.Load load = (region, t) -> region == (t < 12_000 ? 0 : 1) ? 1_200 : 20;
    Scenario s = new Scenario("two regions, L 3 s, B 1,000", 2, 1_000, 1_000,
        dev.ration.wire.Mode.HARD, 3_000, 1_000, 0, dev.ration.wire.Policy.FAIR_SHARE, 30_000,
        2_000, load, 12_000, 1, Scenario.Network.calm(), List.of(), -1, 0, new long[2],
        0.25, 0.5, 42);
    Report r = Simulation.run(s);
    System.out.println(String.format(Locale.ROOT, "| %s | %s | %s | %d | %d |", r.scenario(),
        r.timeTo90(), r.shareTo90(), r.totalExcess(), r.ledgerEntries()));
    assertEquals(0, r.totalExcess(), "no window above R·T + B");
    assertTrue(r.timeTo90Millis() >= 0 && r.timeTo90Millis() <= 3_000,
        "hot region at 90 % of R within one lease duration, not " + r.timeTo90());
  }
}
