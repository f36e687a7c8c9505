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

  public QuotaRefusedException(ReserveResult reply) {
    super(reply.outcome() + " at " + (reply.levelScope().isEmpty() ? "-" : reply.levelScope())
        + " " + reply.resource() + ": " + reply.message()
        + (reply.retryAfter().isZero() ? "" : " (retry after " + reply.retryAfter().toMillis() + " ms)"));
    this.reply = reply;
  }

  public ReserveResult reply() {
    return reply;
  }

  public Outcome outcome() {
    return reply.outcome();
  }

  public String levelScope() {
    return reply.levelScope();
  }

  public Duration retryAfter() {
    return reply.retryAfter();
  }

  public long currentVersion() {
    return reply.currentVersion();
  }
}
