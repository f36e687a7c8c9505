package dev.ration.client.quota;

import dev.ration.wire.Outcome;

/**
 * The ledger's answer to {@link QuotaClient#ackUsage}.
 *
 * @param outcome {@link Outcome#SUCCESS}, or {@link Outcome#INVALID_ARGUMENT} for a sequence
 *     outside the log (negative, or beyond its last record): the cursor is unchanged then
 * @param message the ledger's explanation of a refusal; empty on success
 * @param cursor the consumer's acknowledged sequence after the call: a cursor only moves
 *     forward, so acknowledging an older sequence leaves it where it was
 */
public record AckResult(Outcome outcome, String message, long cursor) {
  /**
   * Whether the acknowledgement was accepted.
   *
   * @return true when {@link #outcome} is {@link Outcome#SUCCESS}
   */
  public boolean succeeded() {
    return outcome == Outcome.SUCCESS;
  }
}
