package dev.ration.client.limiter.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * Goal: the demand meter reports the smoothed admitted and rejected rates, their sum as the
 * demand rate and the peak window as the demand burst, exactly as documented, at explicit times
 * on the holder's clock (nothing sleeps).
 */
class DemandMeterTest {
  private static final long SECOND = 1_000_000_000L;
  /** One peak window, 2^27 ns. */
  private static final long WINDOW = 1L << DemandMeter.WINDOW_SHIFT;

  @Test
  void beforeAnyPeriodItReportsTheFloors() {
    DemandMeter m = new DemandMeter(0.5, 10, 5, 0);
    assertEquals(new DemandMeter.Demand(10, 5, 0, 0), m.report(0, false));
  }

  @Test
  void ratesAreSmoothedPerPeriod() {
    DemandMeter m = new DemandMeter(0.5, 0, 0, 0);
    m.record(100, 0, true);
    m.record(50, 0, false);
    // First period (1 s): the raw rates.
    assertEquals(new DemandMeter.Demand(150, 150, 100, 50), m.report(SECOND, true));

    m.record(300, SECOND + 1, true);
    // Second period: ewma = 0.5·x + 0.5·previous, admitted 0.5·300 + 0.5·100, rejected 0.5·0 + 0.5·50.
    DemandMeter.Demand d = m.report(2 * SECOND, true);
    assertEquals(200, d.admittedPerSecond());
    assertEquals(25, d.rejectedPerSecond());
    assertEquals(225, d.ratePerSecond());
    assertEquals(400, m.admittedTotal());
    assertEquals(50, m.rejectedTotal());
  }

  @Test
  void aPeriodIsMeasuredOverItsOwnLength() {
    DemandMeter m = new DemandMeter(1.0, 0, 0, 0);
    m.record(30, 0, true);
    // 30 permits over 250 ms are 120 per second.
    assertEquals(120, m.report(SECOND / 4, true).admittedPerSecond());
  }

  @Test
  void aReportAtTheSameTimeKeepsTheSmoothedRates() {
    DemandMeter m = new DemandMeter(0.5, 0, 0, 0);
    m.record(100, 0, true);
    assertEquals(100, m.report(SECOND, true).admittedPerSecond());
    m.record(150, SECOND, true);
    // Δ = 0: no new period; the permits wait for the next one.
    assertEquals(100, m.report(SECOND, true).admittedPerSecond());
    // Next period, 1 s: 0.5·150 + 0.5·100.
    assertEquals(125, m.report(2 * SECOND, true).admittedPerSecond());
  }

  /** Goal: a collapse or a surge of demand (beyond ×2) is reported at once, not smoothed. */
  @Test
  void aLevelShiftReplacesTheSmoothedRates() {
    DemandMeter m = new DemandMeter(0.5, 0, 0, 0);
    m.record(1_000, 0, true);
    assertEquals(1_000, m.report(SECOND, true).ratePerSecond());
    m.record(40, SECOND, true);
    m.record(9, SECOND, false);
    // 49 < 1000 / 2: the demand collapsed; the report says so in full.
    DemandMeter.Demand collapsed = m.report(2 * SECOND, true);
    assertEquals(49, collapsed.ratePerSecond());
    assertEquals(40, collapsed.admittedPerSecond());
    assertEquals(9, collapsed.rejectedPerSecond());
    m.record(60, 2 * SECOND, true);
    // 60 is within ×2 of 49: smoothed again, 0.5·60 + 0.5·40 admitted, 0.5·9 rejected.
    assertEquals(50, m.report(3 * SECOND, true).admittedPerSecond());
    m.record(500, 3 * SECOND, false);
    // A surge above twice the smoothed demand is taken at once too.
    assertEquals(500, m.report(4 * SECOND, true).ratePerSecond());
  }

  @Test
  void burstIsTheBusiestWindowAndRejectedPermitsCount() {
    DemandMeter m = new DemandMeter(0.5, 0, 0, 0);
    m.record(10, 0, true);
    m.record(20, WINDOW, true);
    m.record(15, WINDOW + 1, false);
    m.record(5, 2 * WINDOW, true);
    assertEquals(35, m.report(3 * WINDOW, true).burst());
  }

  @Test
  void onlyARenewalRestartsThePeak() {
    DemandMeter m = new DemandMeter(0.5, 0, 0, 0);
    m.record(40, 0, true);
    m.record(1, WINDOW, true);
    // An acquire's report leaves the peak for the next renewal.
    assertEquals(40, m.report(WINDOW, false).burst());
    assertEquals(40, m.report(2 * WINDOW, true).burst());
    // Restarted: the window still in progress (1 permit) and a later one (3) remain.
    m.record(3, 3 * WINDOW, true);
    assertEquals(3, m.report(3 * WINDOW, true).burst());
  }

  @Test
  void floorsHoldUnderLowDemand() {
    DemandMeter m = new DemandMeter(0.5, 10, 5, 0);
    m.record(1, 0, true);
    DemandMeter.Demand d = m.report(SECOND, true);
    assertEquals(1, d.admittedPerSecond());
    assertEquals(10, d.ratePerSecond());
    assertEquals(5, d.burst());
  }

  @Test
  void badParametersAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> new DemandMeter(0, 0, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> new DemandMeter(1.5, 0, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> new DemandMeter(0.5, -1, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> new DemandMeter(0.5, 0, -1, 0));
  }
}
