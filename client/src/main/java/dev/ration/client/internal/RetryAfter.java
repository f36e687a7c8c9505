package dev.ration.client.internal;

/**
 * The one rule both limiters answer a refusal's retry-after with: the <b>earliest</b> of the
 * times at which trying again may succeed that are known — the next local refill (a bucket) or
 * window start (a budget), the answer of a grant or renewal pending or scheduled, the
 * coordinator's expected recovery (its retry-after hint) — each given as a point on the
 * caller's monotonic clock, {@link #UNKNOWN} when it does not apply (docs/LIMITER.md, "Decisions
 * and Retry-After").
 */
public final class RetryAfter {
  /** A candidate that does not apply. */
  public static final long UNKNOWN = Long.MIN_VALUE;

  private RetryAfter() {}

  /**
   * The earliest of {@code candidates} after {@code now}, as a wait in nanoseconds (at least
   * {@code minNanos}); {@link #UNKNOWN} when none is known. A candidate at or before
   * {@code now} is in the past (a hint that ran out, a renewal overdue) and counts as unknown.
   *
   * @param now the clock's present
   * @param minNanos the shortest wait answered
   * @param candidates points in time, or {@link #UNKNOWN}
   * @return the wait, or {@link #UNKNOWN}
   */
  public static long earliestWaitNanos(long now, long minNanos, long... candidates) {
    long best = UNKNOWN;
    for (long at : candidates) {
      if (at != UNKNOWN && at - now > 0 && (best == UNKNOWN || at - best < 0)) {
        best = at;
      }
    }
    return best == UNKNOWN ? UNKNOWN : Math.max(minNanos, best - now);
  }
}
