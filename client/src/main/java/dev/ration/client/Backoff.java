package dev.ration.client;

import java.util.function.LongUnaryOperator;

/**
 * Exponential backoff with full jitter: retry n (0-based) waits uniform [0, min(max, base *
 * 2^n)] millis, but never less than the server's retry-after hint. {@code random} maps a bound
 * to a value in [0, bound] so tests can fix it. Stateless; thread-safe.
 */
record Backoff(long baseMillis, long maxMillis, LongUnaryOperator random) {
  long delayMillis(int retry, long retryAfterMillis) {
    long cap = baseMillis << Math.min(retry, 30);
    if (cap <= 0 || cap > maxMillis) {
      cap = maxMillis;
    }
    return Math.max(retryAfterMillis, random.applyAsLong(cap));
  }
}
