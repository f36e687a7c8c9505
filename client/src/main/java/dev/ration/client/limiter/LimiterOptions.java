package dev.ration.client.limiter;

import java.time.Duration;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * Settings of one {@link RateLimiter}, validated at construction.
 *
 * <ul>
 *   <li>{@code derateRefill}: refill at rate·(1 − driftFraction), so holder clocks up to ε fast
 *       keep the R·T + B bound (on by default).
 *   <li>{@code minDemandRatePerSecond}, {@code minDemandBurst}: the demand asked for on the first
 *       acquire, and the floor of every later report (default 1 and 1).
 *   <li>{@code renewFraction}: renew when this fraction of the lease duration has passed since
 *       the request that produced the lease was sent (default 0.25; (0, 0.9]). Four renewals per
 *       lease let demand move between holders within two lease durations (see the simulation in
 *       docs/benchmarks.md); at 0.5 it took 3.2.
 *   <li>{@code driftFraction} ε: local expiry = send time + duration·(1−ε) − {@code margin}
 *       (default 0.02 and 5 ms): covers clock-rate drift between holder and ledger.
 *   <li>{@code emergencyEnabled}: in best-effort mode, spend the limit's emergency budget E
 *       after local expiry (default true; no effect in hard mode).
 *   <li>{@code ewmaAlpha}: weight of the newest renewal period in the smoothed rates (0.5).
 *   <li>{@code backoffBase}/{@code backoffMax}: retry delays of failed control calls
 *       (50 ms doubling to 2 s). Each delay d is drawn from [d/2, d] ("equal jitter"), so the
 *       holders of a fleet that lost the coordinator together do not retry in lockstep, and a
 *       test that advances a manual clock by d still sees the retry.
 *   <li>{@code jitterRandom}: the random source of that jitter (empty: the calling thread's
 *       {@code ThreadLocalRandom}); a seeded one makes a run repeatable (the simulation).
 *   <li>{@code unknownRetry}: the policy a rejected caller gets when no retry time is known.
 *   <li>{@code closeTimeout}: how long {@code close()} waits for the return (2 s).
 *   <li>{@code scheduler}: where the lifecycle runs (empty: the client's event loop). The
 *       limiter times leases by its client's clock ({@code RationClientOptions}' {@code clock},
 *       the system's monotonic clock by default), or by the clock of a {@link ManualScheduler}
 *       when it runs on one.
 * </ul>
 */
public record LimiterOptions(
    long minDemandRatePerSecond,
    long minDemandBurst,
    double renewFraction,
    double driftFraction,
    Duration margin,
    boolean emergencyEnabled,
    double ewmaAlpha,
    Duration backoffBase,
    Duration backoffMax,
    RetryPolicy unknownRetry,
    Duration closeTimeout,
    Optional<LimiterScheduler> scheduler,
    boolean derateRefill,
    Optional<RandomGenerator> jitterRandom) {

  /**
   * Options, validated (see the class comment for each).
   *
   * @param minDemandRatePerSecond the first demand's rate and the floor of reports
   * @param minDemandBurst the first demand's burst and the floor of reports
   * @param renewFraction the part of a lease after which it is renewed, (0, 0.9]
   * @param driftFraction ε, the clock-rate drift allowed for, [0, 0.5)
   * @param margin subtracted from the local expiry
   * @param emergencyEnabled whether best-effort mode spends the emergency budget
   * @param ewmaAlpha the weight of the newest period in the smoothed rates, (0, 1]
   * @param backoffBase the first retry delay of a failed control call
   * @param backoffMax the longest such delay
   * @param unknownRetry the policy a rejected caller gets when no retry time is known
   * @param closeTimeout how long {@code close()} waits for the return
   * @param scheduler where the lifecycle runs (empty: the client's event loop)
   * @param derateRefill whether to refill at rate·(1 − ε)
   * @param jitterRandom the random source of the backoff jitter
   * @throws IllegalArgumentException on a value out of range or missing
   */
  public LimiterOptions {
    if (minDemandRatePerSecond < 0 || minDemandBurst < 0) {
      throw new IllegalArgumentException("minDemandRatePerSecond " + minDemandRatePerSecond
          + " and minDemandBurst " + minDemandBurst + " must be >= 0");
    }
    if (!(renewFraction > 0 && renewFraction <= 0.9)) {
      throw new IllegalArgumentException("renewFraction " + renewFraction + " not in (0, 0.9]");
    }
    if (!(driftFraction >= 0 && driftFraction < 0.5)) {
      throw new IllegalArgumentException("driftFraction " + driftFraction + " not in [0, 0.5)");
    }
    if (renewFraction >= 1 - driftFraction) {
      throw new IllegalArgumentException("renewFraction " + renewFraction
          + " must be below 1 - driftFraction " + (1 - driftFraction) + " to renew before local expiry");
    }
    if (margin == null || closeTimeout == null || backoffBase == null || backoffMax == null) {
      throw new IllegalArgumentException("margin, closeTimeout and backoff are required");
    }
    if (margin.isNegative() || closeTimeout.isNegative()) {
      throw new IllegalArgumentException("margin " + margin + " and closeTimeout "
          + closeTimeout + " must not be negative");
    }
    if (!(ewmaAlpha > 0 && ewmaAlpha <= 1)) {
      throw new IllegalArgumentException("ewmaAlpha " + ewmaAlpha + " not in (0, 1]");
    }
    if (backoffBase.isNegative() || backoffBase.isZero() || backoffMax.compareTo(backoffBase) < 0) {
      throw new IllegalArgumentException("backoffBase " + backoffBase
          + " and backoffMax " + backoffMax + ": need 0 < base <= max");
    }
    if (unknownRetry == null || scheduler == null || jitterRandom == null) {
      throw new IllegalArgumentException("unknownRetry, scheduler and jitterRandom are required");
    }
  }

  /**
   * The defaults.
   *
   * @return the default options
   */
  public static LimiterOptions defaults() {
    return builder().build();
  }

  /**
   * A builder starting from the defaults.
   *
   * @return a builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A builder starting from these options.
   *
   * @return a builder
   */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.minDemandRatePerSecond = minDemandRatePerSecond;
    b.minDemandBurst = minDemandBurst;
    b.renewFraction = renewFraction;
    b.driftFraction = driftFraction;
    b.margin = margin;
    b.emergencyEnabled = emergencyEnabled;
    b.ewmaAlpha = ewmaAlpha;
    b.backoffBase = backoffBase;
    b.backoffMax = backoffMax;
    b.unknownRetry = unknownRetry;
    b.closeTimeout = closeTimeout;
    b.scheduler = scheduler;
    b.derateRefill = derateRefill;
    b.jitterRandom = jitterRandom;
    return b;
  }

  /** Builds {@link LimiterOptions}; not thread-safe. */
  public static final class Builder {
    private long minDemandRatePerSecond = 1;
    private long minDemandBurst = 1;
    private double renewFraction = 0.25;
    private double driftFraction = 0.02;
    private Duration margin = Duration.ofMillis(5);
    private boolean emergencyEnabled = true;
    private double ewmaAlpha = 0.5;
    private Duration backoffBase = Duration.ofMillis(50);
    private Duration backoffMax = Duration.ofSeconds(2);
    private RetryPolicy unknownRetry = new RetryPolicy(Duration.ofMillis(100), Duration.ofSeconds(5), 6);
    private Duration closeTimeout = Duration.ofSeconds(2);
    private Optional<LimiterScheduler> scheduler = Optional.empty();
    private boolean derateRefill = true;
    private Optional<RandomGenerator> jitterRandom = Optional.empty();

    /**
     * The random source of the backoff jitter (default: {@code ThreadLocalRandom}).
     *
     * @param v the random source
     * @return this builder
     */
    public Builder jitterRandom(RandomGenerator v) {
      jitterRandom = Optional.of(v);
      return this;
    }

    /**
     * Refill at r·(1 − ε) instead of r (default on), so that a holder clock running up to ε fast
     * still admits at most R·T + B overall. Off only in tests that check exact refill figures.
     *
     * @param v whether to derate
     * @return this builder
     */
    public Builder derateRefill(boolean v) {
      derateRefill = v;
      return this;
    }

    /**
     * Initial demand (first acquire) and floor of reported demand.
     *
     * @param ratePerSecond the rate asked for first, and the floor of reports
     * @param burst the burst asked for first, and the floor of reports
     * @return this builder
     */
    public Builder demand(long ratePerSecond, long burst) {
      this.minDemandRatePerSecond = ratePerSecond;
      this.minDemandBurst = burst;
      return this;
    }

    /**
     * The part of a lease after which it is renewed (0.25).
     *
     * @param v in (0, 0.9], below 1 − driftFraction
     * @return this builder
     */
    public Builder renewFraction(double v) {
      renewFraction = v;
      return this;
    }

    /**
     * ε, the clock-rate drift between holder and ledger allowed for (0.02).
     *
     * @param v in [0, 0.5)
     * @return this builder
     */
    public Builder driftFraction(double v) {
      driftFraction = v;
      return this;
    }

    /**
     * Subtracted from the local expiry on top of the drift (5 ms).
     *
     * @param v not negative
     * @return this builder
     */
    public Builder margin(Duration v) {
      margin = v;
      return this;
    }

    /**
     * Whether best-effort mode spends the emergency budget after local expiry (true).
     *
     * @param v whether to spend it
     * @return this builder
     */
    public Builder emergencyEnabled(boolean v) {
      emergencyEnabled = v;
      return this;
    }

    /**
     * The weight of the newest renewal period in the smoothed rates (0.5).
     *
     * @param v in (0, 1]
     * @return this builder
     */
    public Builder ewmaAlpha(double v) {
      ewmaAlpha = v;
      return this;
    }

    /**
     * Retry delays of failed control calls: {@code base} doubling to {@code max} (50 ms, 2 s).
     *
     * @param base the first delay, positive
     * @param max the longest delay, at least {@code base}
     * @return this builder
     */
    public Builder backoff(Duration base, Duration max) {
      backoffBase = base;
      backoffMax = max;
      return this;
    }

    /**
     * The policy a rejected caller gets when no retry time is known (100 ms doubling to 5 s, 6 attempts).
     *
     * @param v the policy
     * @return this builder
     */
    public Builder unknownRetry(RetryPolicy v) {
      unknownRetry = v;
      return this;
    }

    /**
     * How long {@code close()} waits for the return's answer (2 s).
     *
     * @param v not negative
     * @return this builder
     */
    public Builder closeTimeout(Duration v) {
      closeTimeout = v;
      return this;
    }

    /**
     * Where the lifecycle runs (default: the client's event loop).
     *
     * @param v the scheduler
     * @return this builder
     */
    public Builder scheduler(LimiterScheduler v) {
      scheduler = Optional.of(v);
      return this;
    }

    /**
     * Runs the lifecycle on a manual scheduler, which is then also the limiter's clock (tests,
     * the simulation); the same as {@link #scheduler} with it.
     *
     * @param v the manual scheduler, also used as the clock
     * @return this builder
     */
    public Builder manual(ManualScheduler v) {
      scheduler = Optional.of(v);
      return this;
    }

    /**
     * The options.
     *
     * @return the options
     * @throws IllegalArgumentException on a value out of range
     */
    public LimiterOptions build() {
      return new LimiterOptions(minDemandRatePerSecond, minDemandBurst, renewFraction, driftFraction,
          margin, emergencyEnabled, ewmaAlpha, backoffBase, backoffMax, unknownRetry,
          closeTimeout, scheduler, derateRefill, jitterRandom);
    }
  }
}
