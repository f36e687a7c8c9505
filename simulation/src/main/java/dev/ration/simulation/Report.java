package dev.ration.simulation;

import java.util.List;
import java.util.Locale;

/**
 * What one scenario produced.
 *
 * @param utilization admitted over [warmup, end) divided by R·T + B for that T
 * @param timeTo90Millis after the demand shift, until the hot region admitted at ≥ 90 % of R
 *     over a trailing 200 ms window (−1: no shift in the scenario; {@code Long.MAX_VALUE}: never)
 * @param shareTo90Millis after the shift, until the hot region held a lease with rate share
 *     ≥ 90 % of R (same conventions)
 * @param windows the largest number of admissions in any window of each length, and its bound
 * @param emergencyReported the ledger's count of emergency tokens reported by holders
 * @param ledgerEntries entries applied to the real ledger (verify() ran after each)
 */
public record Report(
    String scenario,
    long admitted,
    double utilization,
    long timeTo90Millis,
    long shareTo90Millis,
    List<Window> windows,
    long emergencyReported,
    long ledgerEntries,
    long leaseDurationMillis) {

  /**
   * A window length with the most admissions any window of that length saw (all holders
   * together), against R·T + B (+ E per disconnectable holder in best-effort mode), where T is
   * the span the window's admissions can cover ({@code lengthMillis} − 1 ms: admissions happen
   * on whole simulated milliseconds).
   */
  public record Window(long lengthMillis, long maxAdmitted, long bound) {
    public long excess() {
      return Math.max(0, maxAdmitted - bound);
    }
  }

  public long totalExcess() {
    return windows.stream().mapToLong(Window::excess).sum();
  }

  /** The worst window as a fraction of its bound. */
  public double worstFill() {
    return windows.stream().mapToDouble(w -> (double) w.maxAdmitted() / w.bound()).max().orElse(0);
  }

  public String timeTo90() {
    return format(timeTo90Millis);
  }

  public String shareTo90() {
    return format(shareTo90Millis);
  }

  private String format(long millis) {
    if (millis < 0) {
      return "–";
    }
    if (millis == Long.MAX_VALUE) {
      return "never";
    }
    return String.format(Locale.ROOT, "%d ms (%.2f L)", millis, (double) millis / leaseDurationMillis);
  }
}
