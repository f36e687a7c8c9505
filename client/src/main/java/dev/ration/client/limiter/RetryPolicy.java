package dev.ration.client.limiter;

/**
 * What to do when no retry time is known (no lease yet, coordinator unreachable): retry after
 * {@code initialDelayNanos}, doubling up to {@code maxDelayNanos}, at most {@code maxAttempts}
 * times, then give up (fail the request upstream). Callers add their own jitter.
 */
public record RetryPolicy(long initialDelayNanos, long maxDelayNanos, int maxAttempts) {
  public RetryPolicy {
    if (initialDelayNanos <= 0 || maxDelayNanos < initialDelayNanos || maxAttempts < 1) {
      throw new IllegalArgumentException("retry policy initialDelayNanos " + initialDelayNanos
          + ", maxDelayNanos " + maxDelayNanos + ", maxAttempts " + maxAttempts
          + ": need 0 < initial <= max and attempts >= 1");
    }
  }

  /** Delay before retry {@code attempt} (0-based). */
  public long delayNanos(int attempt) {
    long d = initialDelayNanos << Math.min(Math.max(attempt, 0), 30);
    return d <= 0 || d > maxDelayNanos ? maxDelayNanos : d;
  }
}
