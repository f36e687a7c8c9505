package dev.ration.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.lease.Policy;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The scenarios of issue 3 as tests: the overshoot bound is asserted, not printed. Each runs the
 * real ledger (verify() after every entry, so conservation holds at every step) and the real
 * limiter code on manual clocks; a run is deterministic from its seed.
 */
class SimulationTest {

  static Stream<Scenario> scenarios() {
    return Stream.concat(Scenarios.all().stream(), Stream.of(
        Scenarios.shift().withPolicy(Policy.PROPORTIONAL),
        Scenarios.shift().withPolicy(Policy.STATIC)));
  }

  /** Goal: no window of any length ever admits more than R·T + B (+ Σ E in best-effort). */
  @ParameterizedTest(name = "{0}")
  @MethodSource("scenarios")
  void admissionsNeverExceedTheBoundInAnyWindow(Scenario scenario) {
    Report r = Simulation.run(scenario);
    for (Report.Window w : r.windows()) {
      assertTrue(w.maxAdmitted() <= w.bound(), scenario.name() + ": " + w.maxAdmitted()
          + " admissions in a " + w.lengthMillis() + " ms window, bound " + w.bound());
    }
    assertTrue(r.ledgerEntries() > 100, "the ledger was exercised: " + r.ledgerEntries());
    assertTrue(r.admitted() > 0, "something was admitted");
  }

  /** Goal: with steady demand above R the limit is used: ≥ 97 % of R·T + B after warm-up. */
  @Test
  void steadyDemandUsesAtLeast97Percent() {
    Report r = Simulation.run(Scenarios.steady());
    assertTrue(r.utilization() >= 0.97, "utilization " + r.utilization());
  }

  /** Goal: after demand moves, the hot region admits at 90 % of R within 2 lease durations. */
  @Test
  void hotRegionReaches90PercentWithinTwoLeaseDurations() {
    for (Scenario s : new Scenario[] {Scenarios.shift(), Scenarios.drift()}) {
      Report r = Simulation.run(s);
      assertTrue(r.timeTo90Millis() <= 2 * s.leaseDurationMillis(),
          s.name() + ": hot region at 90 % after " + r.timeTo90Millis() + " ms");
    }
  }

  /** Goal: best-effort overshoot during a partition is spent from E and reported on reconnect. */
  @Test
  void bestEffortPartitionSpendsAndReportsEmergency() {
    Report r = Simulation.run(Scenarios.partitionBestEffort());
    assertTrue(r.emergencyReported() > 0 && r.emergencyReported() <= Scenarios.E,
        "emergency reported " + r.emergencyReported());
    Report hard = Simulation.run(Scenarios.partitionHard());
    assertEquals(0, hard.emergencyReported());
  }

  /** Goal: a run replays exactly from its seed (the simulation is deterministic). */
  @Test
  void replaysExactly() {
    Scenario s = Scenarios.duplicatesAndReordering();
    Report a = Simulation.run(s);
    Report b = Simulation.run(s);
    assertEquals(a, b);
  }

  /**
   * Goal: pin what clock-rate drift does. With every holder's clock 1 % fast (within ε = 2 %),
   * buckets refill 1 % fast in true time: the bound that holds is (1 + δ)·R·T + B, and R·T + B
   * is exceeded on long windows (a known gap, docs/benchmarks.md). Both are asserted, so a fix
   * (refilling at r·(1 − ε)) will fail the second assertion and must update this test.
   */
  @Test
  void fastClocksExceedRTPlusBOnlyByTheDrift() {
    Scenario s = Scenarios.driftAllFast();
    Report r = Simulation.run(s);
    double delta = Scenarios.DRIFT_PPM / 1e6;
    for (Report.Window w : r.windows()) {
      double driftBound = (1 + delta) * s.ratePerSecond() * (w.lengthMillis() - 1) / 1000.0 + s.burst();
      assertTrue(w.maxAdmitted() <= driftBound, w + " above (1 + δ)·R·T + B = " + driftBound);
    }
    assertTrue(r.totalExcess() > 0, "expected the known drift excess over R·T + B on the "
        + s.durationMillis() + " ms window: " + r.windows());
  }

  /** Goal: the window maximum is a sliding maximum over every position. */
  @Test
  void maxWindowSlides() {
    long[] perMilli = {0, 3, 0, 0, 5, 1, 0, 4};
    assertEquals(5, Simulation.maxWindow(perMilli, 1));
    assertEquals(6, Simulation.maxWindow(perMilli, 2));
    assertEquals(6, Simulation.maxWindow(perMilli, 3));
    assertEquals(13, Simulation.maxWindow(perMilli, 8));
  }
}
