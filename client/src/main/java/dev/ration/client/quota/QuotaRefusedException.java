package dev.ration.client.quota;

import java.time.Duration;
import dev.ration.wire.Outcome;

/**
 * A reservation the coordinator refused (a definite domain answer, not a transport failure):
 * thrown only by the try-with-resources form {@link QuotaClient#reserve}; the value form
 * {@link QuotaClient#tryReserve} returns the same refusal as a reply. Names the refusing level
 * and, when known, when to retry ({@code retryAfter} zero = unknown: use a bounded retry
 * policy); for STALE_CONFIG, the current catalog version.
 */
public final class QuotaRefusedException extends RuntimeException {
  private final transient ReserveResult reply;

  /**
   * The refusal {@code reply}.
   *
   * @param reply a reserve answer that is not SUCCESS
   */
  public QuotaRefusedException(ReserveResult reply) {
    super(reply.outcome() + " at " + (reply.levelScope().isEmpty() ? "-" : reply.levelScope())
        + " " + reply.resource() + ": " + reply.message()
        + (reply.retryAfter().isZero() ? "" : " (retry after " + reply.retryAfter().toMillis() + " ms)"));
    this.reply = reply;
  }

  /**
   * The coordinator's answer.
   *
   * @return the refused reserve's result
   */
  public ReserveResult reply() {
    return reply;
  }

  /**
   * Why the reservation was refused.
   *
   * @return the outcome (LIMIT_EXHAUSTED, STALE_CONFIG, ...)
   */
  public Outcome outcome() {
    return reply.outcome();
  }

  /**
   * The scope whose catalog entry refused.
   *
   * @return the refusing level
   */
  public String levelScope() {
    return reply.levelScope();
  }

  /**
   * When trying again may succeed.
   *
   * @return the hint, {@link Duration#ZERO} when unknown
   */
  public Duration retryAfter() {
    return reply.retryAfter();
  }

  /**
   * With STALE_CONFIG, the catalog version in force.
   *
   * @return the version
   */
  public long currentVersion() {
    return reply.currentVersion();
  }
}
