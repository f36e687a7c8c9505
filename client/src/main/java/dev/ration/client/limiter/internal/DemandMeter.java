package dev.ration.client.limiter.internal;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Estimates a holder's demand on its limit from what its {@link dev.ration.client.limiter.RateLimiter} admitted and
 * rejected, for the demand report every acquire and renewal carries (the ledger's allocation
 * input, docs/LIMITER.md).
 *
 * <p><b>Role.</b> Each permit request is {@linkplain #record recorded} with its time. On each
 * {@linkplain #report report}, the period since the previous one, of length Δ, gives
 * {@code a = admitted/Δ} and {@code j = rejected/Δ} (permits per second); each is smoothed as
 * {@code ewma ← α·x + (1−α)·ewma} (the first period: x), except across a <b>level shift</b>: when
 * the period's demand {@code a + j} is below half or above twice the smoothed demand, both are
 * set to the period's measurement, so a holder whose demand collapsed (or surged) says so on its
 * next renewal instead of over several (smoothing damps noise, not a move of the load). The
 * report is {@code
 * admittedPerSecond = round(ewmaA)}, {@code rejectedPerSecond = round(ewmaJ)}, {@code
 * demandRatePerSecond = max(minDemandRate, ceil(ewmaA + ewmaJ))} and {@code demandBurst =
 * max(minDemandBurst, peak)}, where peak is the most permits requested (admitted or not) within
 * one 2^27 ns (≈134 ms) window since the last report that closed its period. Rejected permits
 * count as demand because they are what the holder would have used with a bigger share.
 *
 * <p><b>Threads.</b> {@link #record} runs on the admitting threads: lock-free and
 * allocation-free, with the peak approximate under races (two threads crossing into a new window
 * together may count a few permits in the neighbouring window). {@link #report} runs on the
 * limiter's control path, one call at a time (the limiter calls it under its monitor).
 *
 * <p><b>Invariants.</b> The totals only grow. The smoothed rates are −1 until the first period
 * closes, then never negative. A report at the same time as the previous one (Δ = 0) leaves the
 * smoothed rates as they were. Only a report that closes its period (a renewal) restarts the
 * peak; an acquire's report leaves it, so the next renewal still reports the burst that led to
 * the acquire.
 */
public final class DemandMeter {
  /** Peak windows are 2^27 ns (≈134 ms): short enough to see a burst, long enough to hold one. */
  static final int WINDOW_SHIFT = 27;

  /** A period's demand this many times below or above the smoothed one replaces it. */
  static final double LEVEL_SHIFT = 2.0;

  /** One demand report; every field is ≥ 0. */
  public record Demand(long ratePerSecond, long burst, long admittedPerSecond,
      long rejectedPerSecond) {}

  private final double alpha;
  private final long minRatePerSecond;
  private final long minBurst;

  // Recording state: written by the admitting threads.
  private final LongAdder admitted = new LongAdder();
  private final LongAdder rejected = new LongAdder();
  private final LongAdder windowCount = new LongAdder();
  private final AtomicLong windowIndex = new AtomicLong(Long.MIN_VALUE);
  private final AtomicLong peakInPeriod = new AtomicLong();

  // Reporting state: the control path's alone.
  private long lastReportNanos;
  private long lastAdmitted;
  private long lastRejected;
  private double ewmaAdmitted = -1;
  private double ewmaRejected = -1;

  /**
   * @param alpha weight of the newest period in the smoothed rates, in (0, 1]
   * @param minRatePerSecond least demand rate reported (what a first acquire asks for)
   * @param minBurst least demand burst reported
   * @param startNanos the holder's clock now: the first period starts here
   */
  public DemandMeter(double alpha, long minRatePerSecond, long minBurst, long startNanos) {
    if (!(alpha > 0 && alpha <= 1)) {
      throw new IllegalArgumentException("alpha " + alpha + " not in (0, 1]");
    }
    if (minRatePerSecond < 0 || minBurst < 0) {
      throw new IllegalArgumentException("minRatePerSecond " + minRatePerSecond + " and minBurst "
          + minBurst + " must be >= 0");
    }
    this.alpha = alpha;
    this.minRatePerSecond = minRatePerSecond;
    this.minBurst = minBurst;
    this.lastReportNanos = startNanos;
  }

  /**
   * The meter a limiter with {@code options} uses, its first period starting at {@code startNanos}.
   *
   * @param options the limiter's options (smoothing and demand floor)
   * @param startNanos the limiter clock's time the first period starts at
   * @return the meter
   */
  public static DemandMeter of(dev.ration.client.limiter.LimiterOptions options, long startNanos) {
    return new DemandMeter(options.ewmaAlpha(), options.minDemandRatePerSecond(),
        options.minDemandBurst(), startNanos);
  }

  /**
   * Records one request of {@code permits} at {@code nowNanos}, admitted or not. Lock-free.
   *
   * @param permits the permits asked for
   * @param nowNanos the limiter clock's time
   * @param wasAdmitted whether they were taken
   */
  public void record(long permits, long nowNanos, boolean wasAdmitted) {
    long w = nowNanos >> WINDOW_SHIFT;
    long current = windowIndex.get();
    if (w != current && windowIndex.compareAndSet(current, w)) {
      long sum = windowCount.sumThenReset();
      peakInPeriod.accumulateAndGet(sum, Math::max);
    }
    windowCount.add(permits);
    if (wasAdmitted) {
      admitted.add(permits);
    } else {
      rejected.add(permits);
    }
  }

  /**
   * The demand at {@code nowNanos}, closing the smoothing period there. {@code closePeriod}
   * (renewals) also restarts the peak; an acquire passes false. Control path only.
   *
   * @param nowNanos the limiter clock's time
   * @param closePeriod whether the report ends a renewal period (the smoothed rates move on)
   * @return the demand to report
   */
  public Demand report(long nowNanos, boolean closePeriod) {
    long a = admitted.sum();
    long j = rejected.sum();
    long periodNanos = nowNanos - lastReportNanos;
    if (periodNanos > 0) {
      double seconds = periodNanos / 1e9;
      double ra = (a - lastAdmitted) / seconds;
      double rj = (j - lastRejected) / seconds;
      double smoothed = ewmaAdmitted + ewmaRejected;
      boolean levelShift = ewmaAdmitted < 0
          || ra + rj < smoothed / LEVEL_SHIFT || ra + rj > smoothed * LEVEL_SHIFT;
      ewmaAdmitted = levelShift ? ra : alpha * ra + (1 - alpha) * ewmaAdmitted;
      ewmaRejected = levelShift ? rj : alpha * rj + (1 - alpha) * ewmaRejected;
      lastAdmitted = a;
      lastRejected = j;
      lastReportNanos = nowNanos;
    }
    double ea = Math.max(0, ewmaAdmitted);
    double ej = Math.max(0, ewmaRejected);
    long peak = Math.max(peakInPeriod.get(), windowCount.sum());
    if (closePeriod) {
      peakInPeriod.set(0);
    }
    long rate = Math.max(minRatePerSecond, (long) Math.ceil(ea + ej));
    long burst = Math.max(minBurst, peak);
    return new Demand(rate, burst, Math.round(ea), Math.round(ej));
  }

  /**
   * Permits admitted so far.
   *
   * @return permits admitted since the meter started
   */
  public long admittedTotal() {
    return admitted.sum();
  }

  /**
   * Permits refused so far.
   *
   * @return permits rejected since the meter started
   */
  public long rejectedTotal() {
    return rejected.sum();
  }
}
