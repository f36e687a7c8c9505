package dev.ration.client.quota;

import dev.ration.wire.Outcome;

/**
 * The ledger's answer to {@link QuotaClient#ingestUsage}.
 *
 * @param outcome {@link Outcome#SUCCESS}, or {@link Outcome#INVALID_ARGUMENT} for a report the
 *     ledger refused (event time outside the window it accepts, a reserved event-id prefix, a
 *     negative quantity for a resource that is not an allocation...); nothing is recorded then
 * @param message the ledger's explanation of a refusal; empty on success
 * @param sequence on success, the usage log's sequence number of the event (of the first one
 *     recorded, for a duplicate)
 * @param duplicate true when the event id was already recorded: the event is counted once
 */
public record IngestResult(Outcome outcome, String message, long sequence, boolean duplicate) {
  /**
   * Whether the event is in the usage log (newly or as a duplicate).
   *
   * @return true when {@link #outcome} is {@link Outcome#SUCCESS}
   */
  public boolean succeeded() {
    return outcome == Outcome.SUCCESS;
  }
}
