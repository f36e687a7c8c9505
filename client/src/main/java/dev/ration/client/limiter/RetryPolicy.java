package dev.ration.client.limiter;

import java.time.Duration;

/**
 * What to do when no retry time is known (no lease yet, coordinator unreachable): retry after
 * {@code initialDelay}, doubling up to {@code maxDelay}, at most {@code maxAttempts}
 * times, then give up (fail the request upstream). Callers add their own jitter.
 */
public record RetryPolicy(Duration initialDelay, Duration maxDelay, int maxAttempts) {
  /**
   * A policy, validated.
   *
   * @param initialDelay the first delay, positive
   * @param maxDelay the longest delay, at least the first
   * @param maxAttempts the most attempts, at least 1
   * @throws IllegalArgumentException on a value out of range
   */
  public RetryPolicy {
    if (initialDelay == null || maxDelay == null || initialDelay.isNegative() || initialDelay.isZero()
        || maxDelay.compareTo(initialDelay) < 0 || maxAttempts < 1) {
      throw new IllegalArgumentException("retry policy initialDelay " + initialDelay
          + ", maxDelay " + maxDelay + ", maxAttempts " + maxAttempts
          + ": need 0 < initial <= max and attempts >= 1");
    }
  }

  /**
   * Delay before retry {@code attempt} (0-based).
   *
   * @param attempt 0 for the first retry
   * @return the delay before it
   */
  public Duration delay(int attempt) {
    long initial = initialDelay.toNanos();
    long max = maxDelay.toNanos();
    long d = initial << Math.min(Math.max(attempt, 0), 30);
    return Duration.ofNanos(d <= 0 || d > max ? max : d);
  }
}
