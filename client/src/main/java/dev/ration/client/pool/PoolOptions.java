package dev.ration.client.pool;

import dev.ration.client.time.MonotonicClock;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongUnaryOperator;

/**
 * Every bound of a {@link WorkerPool}, validated here so a bad value fails at construction with
 * a message that shows it.
 *
 * @param workers worker threads W: the most jobs that ever run at once
 * @param queueCapacity jobs Q that may wait (queued, or backing off before a retry) at admission
 * @param maxAttempts attempts per job, the first one included (1 = never retry)
 * @param backoffBase the cap of the first retry's delay; each retry doubles the cap
 * @param backoffMax the largest cap
 * @param resultsRetained how many ended jobs' results stay readable by id
 * @param resultsRetainedFor how long an ended job's result stays readable by id
 * @param cancelLead how long before the slot lease ends the pool stops starting jobs and cancels
 *     running ones' tokens
 * @param tick how often the pool's housekeeping thread looks at deadlines, the lease, retries
 *     that are due and retention
 * @param clock the clock for deadlines, lease ends, backoff and ages
 * @param jitter maps a bound b to a value in [0, b] (full jitter); tests fix it
 * @param threadNamePrefix prefix for the pool's thread names
 * @param monotonicClock the clock for the run time of attempts and for spacing log lines
 *     ({@link MonotonicClock#SYSTEM}); deadlines are instants, on {@code clock}
 */
public record PoolOptions(int workers, int queueCapacity, int maxAttempts, Duration backoffBase,
                          Duration backoffMax, int resultsRetained, Duration resultsRetainedFor,
                          Duration cancelLead, Duration tick, Clock clock, LongUnaryOperator jitter,
                          String threadNamePrefix, MonotonicClock monotonicClock) {
  /**
   * Options on the system's monotonic clock (the form before it could be set).
   *
   * @param workers W, the most attempts running at once
   * @param queueCapacity Q, the most jobs waiting
   * @param maxAttempts the most attempts of a job
   * @param backoffBase the first retry delay cap
   * @param backoffMax the largest retry delay cap
   * @param resultsRetained the most finished results kept
   * @param resultsRetainedFor how long a finished result is kept
   * @param cancelLead how long before a deadline a running job's token is cancelled
   * @param tick how often the pool checks deadlines
   * @param clock the pool's clock
   * @param jitter draws a delay in [0, bound] for a bound
   * @param threadNamePrefix the workers' thread names' prefix
   */
  public PoolOptions(int workers, int queueCapacity, int maxAttempts, Duration backoffBase,
                     Duration backoffMax, int resultsRetained, Duration resultsRetainedFor,
                     Duration cancelLead, Duration tick, Clock clock, LongUnaryOperator jitter,
                     String threadNamePrefix) {
    this(workers, queueCapacity, maxAttempts, backoffBase, backoffMax, resultsRetained,
        resultsRetainedFor, cancelLead, tick, clock, jitter, threadNamePrefix, MonotonicClock.SYSTEM);
  }

  /**
   * Options, validated.
   *
   * @param workers W, the most attempts running at once
   * @param queueCapacity Q, the most jobs waiting
   * @param maxAttempts the most attempts of a job
   * @param backoffBase the first retry delay cap
   * @param backoffMax the largest retry delay cap
   * @param resultsRetained the most finished results kept
   * @param resultsRetainedFor how long a finished result is kept
   * @param cancelLead how long before a deadline a running job's token is cancelled
   * @param tick how often the pool checks deadlines
   * @param clock the pool's clock
   * @param jitter draws a delay in [0, bound] for a bound
   * @param threadNamePrefix the workers' thread names' prefix
   * @param monotonicClock the clock of run times and log spacing
   * @throws IllegalArgumentException on a value out of range
   */
  public PoolOptions {
    Objects.requireNonNull(backoffBase, "backoffBase");
    Objects.requireNonNull(backoffMax, "backoffMax");
    Objects.requireNonNull(resultsRetainedFor, "resultsRetainedFor");
    Objects.requireNonNull(cancelLead, "cancelLead");
    Objects.requireNonNull(tick, "tick");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(jitter, "jitter");
    Objects.requireNonNull(threadNamePrefix, "threadNamePrefix");
    Objects.requireNonNull(monotonicClock, "monotonicClock");
    check(workers >= 1 && workers <= 10_000, "workers " + workers + " must be in [1, 10000]");
    // Every job passes through the queue on its way to a worker, so a pool with no queue
    // could accept nothing.
    check(queueCapacity >= 1 && queueCapacity <= 10_000_000,
        "queueCapacity " + queueCapacity + " must be in [1, 10000000]");
    check(maxAttempts >= 1 && maxAttempts <= 100, "maxAttempts " + maxAttempts + " must be in [1, 100]");
    check(backoffBase.toNanos() > 0 && backoffMax.compareTo(backoffBase) >= 0,
        "backoffBase " + backoffBase + " and backoffMax " + backoffMax + ": need 0 < base <= max");
    check(resultsRetained >= 0, "resultsRetained " + resultsRetained + " must be >= 0");
    check(!resultsRetainedFor.isNegative(), "resultsRetainedFor " + resultsRetainedFor + " must be >= 0");
    check(!cancelLead.isNegative(), "cancelLead " + cancelLead + " must be >= 0");
    check(tick.toNanos() >= 1_000_000 && tick.toMillis() <= 60_000, "tick " + tick + " must be in [1ms, 60s]");
  }

  /**
   * W workers, queue Q, 3 attempts with backoff capped at 100 ms doubling to 10 s, 10,000
   * results kept for at most 5 minutes, a cancel lead of 500 ms, a 10 ms tick, the system clock.
   *
   * @param workers W
   * @param queueCapacity Q
   * @return the options
   */
  public static PoolOptions of(int workers, int queueCapacity) {
    return new PoolOptions(workers, queueCapacity, 3, Duration.ofMillis(100), Duration.ofSeconds(10),
        10_000, Duration.ofMinutes(5), Duration.ofMillis(500), Duration.ofMillis(10),
        Clock.systemUTC(), bound -> bound <= 0 ? 0 : ThreadLocalRandom.current().nextLong(bound + 1),
        "ration-pool", MonotonicClock.SYSTEM);
  }

  /**
   * These options with other retries.
   *
   * @param maxAttempts the most attempts of a job
   * @param backoffBase the first retry delay cap
   * @param backoffMax the largest retry delay cap
   * @return the options
   */
  public PoolOptions withRetries(int maxAttempts, Duration backoffBase, Duration backoffMax) {
    return new PoolOptions(workers, queueCapacity, maxAttempts, backoffBase, backoffMax, resultsRetained,
        resultsRetainedFor, cancelLead, tick, clock, jitter, threadNamePrefix, monotonicClock);
  }

  /**
   * These options keeping other numbers of finished results.
   *
   * @param resultsRetained the most kept
   * @param resultsRetainedFor how long each is kept
   * @return the options
   */
  public PoolOptions withRetention(int resultsRetained, Duration resultsRetainedFor) {
    return new PoolOptions(workers, queueCapacity, maxAttempts, backoffBase, backoffMax, resultsRetained,
        resultsRetainedFor, cancelLead, tick, clock, jitter, threadNamePrefix, monotonicClock);
  }

  /**
   * These options with another cancel lead.
   *
   * @param cancelLead how long before a deadline a running job's token is cancelled
   * @return the options
   */
  public PoolOptions withCancelLead(Duration cancelLead) {
    return new PoolOptions(workers, queueCapacity, maxAttempts, backoffBase, backoffMax, resultsRetained,
        resultsRetainedFor, cancelLead, tick, clock, jitter, threadNamePrefix, monotonicClock);
  }

  /**
   * These options with another clock.
   *
   * @param clock the pool's clock
   * @return the options
   */
  public PoolOptions withClock(Clock clock) {
    return new PoolOptions(workers, queueCapacity, maxAttempts, backoffBase, backoffMax, resultsRetained,
        resultsRetainedFor, cancelLead, tick, clock, jitter, threadNamePrefix, monotonicClock);
  }

  /**
   * These options with another jitter.
   *
   * @param jitter draws a delay in [0, bound] for a bound
   * @return the options
   */
  public PoolOptions withJitter(LongUnaryOperator jitter) {
    return new PoolOptions(workers, queueCapacity, maxAttempts, backoffBase, backoffMax, resultsRetained,
        resultsRetainedFor, cancelLead, tick, clock, jitter, threadNamePrefix, monotonicClock);
  }

  /**
   * These options with another monotonic clock.
   *
   * @param monotonicClock the clock of run times and log spacing
   * @return the options
   */
  public PoolOptions withMonotonicClock(MonotonicClock monotonicClock) {
    return new PoolOptions(workers, queueCapacity, maxAttempts, backoffBase, backoffMax, resultsRetained,
        resultsRetainedFor, cancelLead, tick, clock, jitter, threadNamePrefix, monotonicClock);
  }

  /** The cap of retry {@code retry}'s delay (0-based): base * 2^retry, at most max. */
  long backoffCapNanos(int retry) {
    long cap = backoffBase.toNanos() << Math.min(retry, 30);
    return cap <= 0 || cap > backoffMax.toNanos() ? backoffMax.toNanos() : cap;
  }

  private static void check(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException("pool options: " + message);
    }
  }
}
