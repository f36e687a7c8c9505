package dev.ration.client.limiter;

import java.time.Duration;

/**
 * The answer of {@link RateLimiter#decide}: whether the permits were taken, why, and when to try
 * again. A refused decision's {@code retryAfter} is the earliest of the times that are known, the
 * rule the quota limiter answers with too (docs/LIMITER.md, "Decisions and Retry-After"):
 * <ul>
 *   <li>the lease is held and its bucket refills enough for the request before the lease's
 *       term ends: that refill ({@code NO_TOKENS});</li>
 *   <li>the last refused or failed acquire carried a hint that is still in the future (the
 *       ledger's retry-after of a {@code LIMIT_EXHAUSTED}, or the retry-after of the error a
 *       failed call returned): the coordinator's expected recovery.</li>
 * </ul>
 * When neither is known, the first delay of {@code retryPolicy}, a bounded policy to follow
 * instead ({@code retryAfterKnown} false; always so for {@code CLOSED}).
 * Allowed decisions carry {@link Duration#ZERO}. {@link #retryAfter()} is the exact
 * {@link Duration}; {@link #retryAfterSeconds()} is the same wait for the HTTP {@code
 * Retry-After} header, which takes whole seconds: rounded up, so a client that waits that long
 * does not come back early.
 */
public record Decision(
    boolean allowed, Reason reason, Duration retryAfter, boolean retryAfterKnown, RetryPolicy retryPolicy) {

  /** Why a decision came out as it did. */
  public enum Reason {
    /** Taken from the leased bucket. */
    ADMITTED,
    /** Taken from the one-off emergency budget (best-effort mode, lease lost). */
    ADMITTED_EMERGENCY,
    /** A lease is held but its bucket lacks the tokens. */
    NO_TOKENS,
    /** No lease yet (first use, or the ledger has no capacity); one is being acquired. */
    NO_LEASE,
    /** The lease expired locally without renewal (hard mode), or was lost; a new one is being acquired. */
    LEASE_EXPIRED,
    /** Best-effort mode: lease lost and the emergency budget of this disconnection is spent. */
    EMERGENCY_EXHAUSTED,
    /** The limiter was closed. */
    CLOSED
  }

  /**
   * A decision, validated.
   *
   * @param allowed whether the permits were taken
   * @param reason why
   * @param retryAfter when to try again (zero when allowed)
   * @param retryAfterKnown whether {@code retryAfter} is exact
   * @param retryPolicy the bounded policy to follow when it is not
   * @throws IllegalArgumentException when {@code allowed} contradicts {@code reason}, or a value is missing or negative
   */
  public Decision {
    if (reason == null || retryPolicy == null || retryAfter == null) {
      throw new IllegalArgumentException("reason " + reason + ", retryAfter " + retryAfter
          + " and retryPolicy " + retryPolicy + " are required");
    }
    if (allowed != (reason == Reason.ADMITTED || reason == Reason.ADMITTED_EMERGENCY)) {
      throw new IllegalArgumentException("allowed " + allowed + " contradicts reason " + reason);
    }
    if (retryAfter.isNegative()) {
      throw new IllegalArgumentException("retryAfter " + retryAfter + " < 0");
    }
  }

  /**
   * The HTTP 429 {@code Retry-After} value: {@link #retryAfter()} in whole seconds, rounded up
   * (1.3 s is 2), at least 1; 0 for an allowed decision. Code that sleeps or schedules should
   * use {@link #retryAfter()}, which is not rounded.
   *
   * @return whole seconds to wait
   */
  public long retryAfterSeconds() {
    if (allowed) {
      return 0;
    }
    long seconds = retryAfter.getSeconds() + (retryAfter.getNano() > 0 ? 1 : 0);
    return Math.max(1, seconds);
  }
}
