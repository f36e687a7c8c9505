package dev.ration.client.quota;

import dev.ration.client.limiter.LimiterScheduler;
import java.time.Duration;
import java.util.Optional;

/**
 * Settings of one {@link QuotaLimiter}, validated at construction.
 *
 * <ul>
 *   <li>{@code lease}: how long each budget is held unless renewed (default 10 s; 1 s to 10 min).
 *       A holder cut off from the coordinator stops admitting at most this long after its last
 *       renewal.
 *   <li>{@code renewFraction}: every budget is reported and renewed when this fraction of the
 *       lease has passed (default 1/3; (0, 0.9]); all of a limiter's budgets go in one request.
 *   <li>{@code initialAmount}: what a first grant asks for (default 100).
 *   <li>{@code minCushion}: the least unspent amount each renewal asks to hold beyond what was
 *       spent (default 100); a renewal asks for twice the recent spending rate over a round if
 *       that is more.
 *       Asking for less than is held gives the rest back to the other holders of the levels.
 *   <li>{@code driftFraction} ε and {@code margin}: a budget admits locally until send time +
 *       (its ledger expiry − the ledger time of the answer)·(1 − ε) − margin, measured on this
 *       process's monotonic clock from when the request was sent (default 0.02 and 5 ms): a
 *       holder clock up to ε fast still stops before the ledger stops counting the budget.
 *   <li>{@code backoffMax}: the longest wait between retries of a failed grant (default 2 s).
 *   <li>{@code closeTimeout}: how long {@code close()} waits for the returns (default 2 s).
 *   <li>{@code scheduler}: where the control steps run (empty: the client's event loop).
 * </ul>
 *
 * @param lease how long each budget is held unless renewed
 * @param renewFraction the part of the lease after which budgets are renewed, (0, 0.9]
 * @param initialAmount what a first grant asks for, positive
 * @param minCushion the least unspent amount a renewal asks to hold, positive
 * @param driftFraction ε, the clock-rate drift allowed for, [0, 0.5)
 * @param margin subtracted from every local expiry
 * @param backoffMax the longest wait between retries of a failed grant
 * @param closeTimeout how long {@code close()} waits for the returns
 * @param scheduler where the control steps run (empty: the client's event loop)
 */
public record QuotaLimiterOptions(Duration lease, double renewFraction, long initialAmount,
    long minCushion, double driftFraction, Duration margin, Duration backoffMax,
    Duration closeTimeout, Optional<LimiterScheduler> scheduler) {

  /**
   * Options, validated (see the class comment for each).
   *
   * @param lease how long each budget is held unless renewed
   * @param renewFraction the part of the lease after which budgets are renewed
   * @param initialAmount what a first grant asks for
   * @param minCushion the least unspent amount a renewal asks to hold
   * @param driftFraction ε
   * @param margin subtracted from every local expiry
   * @param backoffMax the longest wait between retries of a failed grant
   * @param closeTimeout how long {@code close()} waits for the returns
   * @param scheduler where the control steps run
   * @throws IllegalArgumentException on a value out of range or missing
   */
  public QuotaLimiterOptions {
    if (lease == null || lease.compareTo(Duration.ofSeconds(1)) < 0
        || lease.compareTo(Duration.ofMinutes(10)) > 0) {
      throw new IllegalArgumentException("lease " + lease + " not in [1 s, 10 min]");
    }
    if (!(renewFraction > 0 && renewFraction <= 0.9)) {
      throw new IllegalArgumentException("renewFraction " + renewFraction + " not in (0, 0.9]");
    }
    if (initialAmount < 1 || minCushion < 1) {
      throw new IllegalArgumentException("initialAmount " + initialAmount + " and minCushion "
          + minCushion + " must be positive");
    }
    if (!(driftFraction >= 0 && driftFraction < 0.5)) {
      throw new IllegalArgumentException("driftFraction " + driftFraction + " not in [0, 0.5)");
    }
    if (margin == null || margin.isNegative() || backoffMax == null || backoffMax.isZero() || backoffMax.isNegative()
        || closeTimeout == null || closeTimeout.isNegative() || scheduler == null) {
      throw new IllegalArgumentException("margin, backoffMax, closeTimeout and scheduler are required"
          + " (margin and closeTimeout not negative, backoffMax positive)");
    }
  }

  /**
   * The defaults (see the class comment).
   *
   * @return the default options
   */
  public static QuotaLimiterOptions defaults() {
    return new QuotaLimiterOptions(Duration.ofSeconds(10), 1.0 / 3, 100, 100, 0.02,
        Duration.ofMillis(5), Duration.ofSeconds(2), Duration.ofSeconds(2), Optional.empty());
  }

  /**
   * These options with another lease.
   *
   * @param value how long each budget is held unless renewed
   * @return the new options
   */
  public QuotaLimiterOptions withLease(Duration value) {
    return new QuotaLimiterOptions(value, renewFraction, initialAmount, minCushion, driftFraction,
        margin, backoffMax, closeTimeout, scheduler);
  }

  /**
   * These options with other grant sizes.
   *
   * @param initial what a first grant asks for
   * @param cushion the least unspent amount a renewal asks to hold
   * @return the new options
   */
  public QuotaLimiterOptions withAmounts(long initial, long cushion) {
    return new QuotaLimiterOptions(lease, renewFraction, initial, cushion, driftFraction, margin,
        backoffMax, closeTimeout, scheduler);
  }

  /**
   * These options running the control steps on {@code value}.
   *
   * @param value the scheduler
   * @return the new options
   */
  public QuotaLimiterOptions withScheduler(LimiterScheduler value) {
    return new QuotaLimiterOptions(lease, renewFraction, initialAmount, minCushion, driftFraction,
        margin, backoffMax, closeTimeout, Optional.of(value));
  }
}
