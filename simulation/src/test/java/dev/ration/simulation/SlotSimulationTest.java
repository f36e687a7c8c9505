package dev.ration.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * Pools sharing a concurrency cap through slot leases on the real ledger (docs/benchmarks.md,
 * "Simulation (concurrency slots)"): the jobs running together never exceed C nor what the
 * ledger counts, and with the release promise the hot pool runs 90 % of C within one lease
 * duration after demand moves. Prints the table of the benchmarks page.
 */
class SlotSimulationTest {
  @Test
  void poolsStayUnderTheCapAndReleaseRebalancesWithinOneLease() {
    System.out.println("| setup | max running / C | max running − counted | hot share ≥ 90 % C "
        + "| hot running ≥ 90 % C | jobs completed | ledger entries |");
    System.out.println("|---|---|---|---|---|---|---|");
    for (SlotSimulation.Setup setup : SlotSimulation.all()) {
      SlotSimulation.Outcome o = SlotSimulation.run(setup);
      System.out.println(String.format(Locale.ROOT, "| %s | %d / %d | %d | %s | %s | %d | %d |",
          o.name(), o.maxConcurrent(), setup.cap(), o.maxAboveCounted(),
          inLeases(o.hotShareTo90Millis(), o), inLeases(o.hotRunningTo90Millis(), o),
          o.completed(), o.ledgerEntries()));
      assertTrue(o.maxConcurrent() <= setup.cap(), o.name() + ": " + o.maxConcurrent());
      assertTrue(o.maxAboveCounted() <= 0, o.name() + ": ran above the counted slots");
      assertTrue(o.hotRunningTo90Millis() >= 0, o.name() + ": the hot pool never got there");
    }
    SlotSimulation.Outcome fast = SlotSimulation.run(SlotSimulation.shift(true));
    assertTrue(fast.hotRunningTo90Millis() <= fast.leaseMillis(),
        "release: " + fast.hotRunningTo90Millis() + " ms");
  }

  /**
   * The shape `ration bench --op rebalance` measures on a real cluster: C = 20, W = 20, L = 3 s,
   * grace 1 s, 50 ms jobs, 480 jobs/s at the hot pool and 1/s at the cold one, moving at 12 s.
   */
  @Test
  void threeSecondLeasesAsOnTheCluster() {
    SlotSimulation.Setup setup = new SlotSimulation.Setup("slots, L 3 s (release)", true, 20, 2, 20,
        3_000, 1_000, 50, 480, 1, 12_000, 24_000, 10);
    SlotSimulation.Outcome o = SlotSimulation.run(setup);
    System.out.println(String.format(Locale.ROOT, "| %s | %d / %d | %d | %s | %s | %d | %d |",
        o.name(), o.maxConcurrent(), setup.cap(), o.maxAboveCounted(),
        inLeases(o.hotShareTo90Millis(), o), inLeases(o.hotRunningTo90Millis(), o),
        o.completed(), o.ledgerEntries()));
    assertTrue(o.maxConcurrent() <= setup.cap(), "never above C: " + o.maxConcurrent());
    assertTrue(o.maxAboveCounted() <= 0, "every running job counted");
    assertTrue(o.hotRunningTo90Millis() >= 0 && o.hotRunningTo90Millis() <= o.leaseMillis(),
        "hot pool at 90 % of C within one lease duration, not " + o.hotRunningTo90Millis() + " ms");
  }

  @Test
  void replaysExactly() {
    assertEquals(SlotSimulation.run(SlotSimulation.shift(true)),
        SlotSimulation.run(SlotSimulation.shift(true)));
  }

  private static String inLeases(long millis, SlotSimulation.Outcome o) {
    return millis < 0 ? "never"
        : String.format(Locale.ROOT, "%d ms (%.2f L)", millis, millis / (double) o.leaseMillis());
  }
}
