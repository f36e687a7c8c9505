package dev.ration.client.quota;

import dev.ration.wire.Outcome;
import dev.ration.client.protocol.QuotaResponse;

/**
 * A reservation the coordinator refused (a definite domain answer, not a transport failure):
 * thrown only by the try-with-resources form {@link QuotaClient#reserve}; the value form
 * {@link QuotaClient#tryReserve} returns the same refusal as a reply. Names the refusing level
 * and, when known, when to retry ({@code retryAfterMillis} 0 = unknown: use a bounded retry
 * policy); for STALE_CONFIG, the current catalog version.
 */
public final class QuotaRefusedException extends RuntimeException {
  private final transient QuotaResponse.ReserveReply reply;

  public QuotaRefusedException(QuotaResponse.ReserveReply reply) {
    super(reply.outcome() + " at " + (reply.levelScope().isEmpty() ? "-" : reply.levelScope())
        + " " + reply.resource() + ": " + reply.message()
        + (reply.retryAfterMillis() > 0 ? " (retry after " + reply.retryAfterMillis() + " ms)" : ""));
    this.reply = reply;
  }

  public QuotaResponse.ReserveReply reply() {
    return reply;
  }

  public Outcome outcome() {
    return reply.outcome();
  }

  public String levelScope() {
    return reply.levelScope();
  }

  public long retryAfterMillis() {
    return reply.retryAfterMillis();
  }

  public long currentVersion() {
    return reply.currentVersion();
  }
}
