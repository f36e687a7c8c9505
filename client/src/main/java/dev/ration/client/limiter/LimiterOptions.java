package dev.ration.client.limiter;

import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;
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
 *   <li>{@code nanoClock}: the monotonic clock (System::nanoTime); {@code scheduler}: where the
 *       lifecycle runs (empty: the client's event loop).
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
    LongSupplier nanoClock,
    Optional<LimiterScheduler> scheduler,
    boolean derateRefill,
    Optional<RandomGenerator> jitterRandom) {

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
    if (unknownRetry == null || nanoClock == null || scheduler == null || jitterRandom == null) {
      throw new IllegalArgumentException("unknownRetry, nanoClock, scheduler and jitterRandom are required");
    }
  }

  public static LimiterOptions defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

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
    b.nanoClock = nanoClock;
    b.scheduler = scheduler;
    b.derateRefill = derateRefill;
    b.jitterRandom = jitterRandom;
    return b;
  }

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
    private LongSupplier nanoClock = System::nanoTime;
    private Optional<LimiterScheduler> scheduler = Optional.empty();
    private boolean derateRefill = true;
    private Optional<RandomGenerator> jitterRandom = Optional.empty();

    /** The random source of the backoff jitter (default: {@code ThreadLocalRandom}). */
    public Builder jitterRandom(RandomGenerator v) {
      jitterRandom = Optional.of(v);
      return this;
    }

    /**
     * Refill at r·(1 − ε) instead of r (default on), so that a holder clock running up to ε fast
     * still admits at most R·T + B overall. Off only in tests that check exact refill figures.
     */
    public Builder derateRefill(boolean v) {
      derateRefill = v;
      return this;
    }

    /** Initial demand (first acquire) and floor of reported demand. */
    public Builder demand(long ratePerSecond, long burst) {
      this.minDemandRatePerSecond = ratePerSecond;
      this.minDemandBurst = burst;
      return this;
    }

    public Builder renewFraction(double v) {
      renewFraction = v;
      return this;
    }

    public Builder driftFraction(double v) {
      driftFraction = v;
      return this;
    }

    public Builder margin(Duration v) {
      margin = v;
      return this;
    }

    public Builder emergencyEnabled(boolean v) {
      emergencyEnabled = v;
      return this;
    }

    public Builder ewmaAlpha(double v) {
      ewmaAlpha = v;
      return this;
    }

    public Builder backoff(Duration base, Duration max) {
      backoffBase = base;
      backoffMax = max;
      return this;
    }

    public Builder unknownRetry(RetryPolicy v) {
      unknownRetry = v;
      return this;
    }

    public Builder closeTimeout(Duration v) {
      closeTimeout = v;
      return this;
    }

    public Builder nanoClock(LongSupplier v) {
      nanoClock = v;
      return this;
    }

    public Builder scheduler(LimiterScheduler v) {
      scheduler = Optional.of(v);
      return this;
    }

    /** A manual scheduler is also the clock. */
    public Builder manual(ManualScheduler v) {
      scheduler = Optional.of(v);
      nanoClock = v::nanoTime;
      return this;
    }

    public LimiterOptions build() {
      return new LimiterOptions(minDemandRatePerSecond, minDemandBurst, renewFraction, driftFraction,
          margin, emergencyEnabled, ewmaAlpha, backoffBase, backoffMax, unknownRetry,
          closeTimeout, nanoClock, scheduler, derateRefill, jitterRandom);
    }
  }
}
