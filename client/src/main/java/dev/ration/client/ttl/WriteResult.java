package dev.ration.client.ttl;

import dev.ration.client.time.LedgerTime;
import dev.ration.wire.Outcome;

/**
 * The answer to a put, compare-and-set or refresh. Refusals are values, not exceptions:
 * {@link Outcome#VERSION_MISMATCH} (with {@link #currentVersion}), {@link Outcome#ENTRY_UNKNOWN},
 * {@link Outcome#NAMESPACE_FULL}, {@link Outcome#INVALID_ARGUMENT}.
 *
 * @param outcome {@link Outcome#SUCCESS} or why the write was refused
 * @param message the server's explanation of a refusal; empty on success
 * @param version on success the entry's version (a refresh keeps it); 0 otherwise
 * @param expiresAt on success the entry's new expiry in ledger time
 * @param currentVersion with {@link Outcome#VERSION_MISMATCH}, the live version (0 = absent)
 */
public record WriteResult(Outcome outcome, String message, long version, LedgerTime expiresAt,
    long currentVersion) {
  /**
   * Whether the write was applied.
   *
   * @return true when {@link #outcome} is {@link Outcome#SUCCESS}
   */
  public boolean succeeded() {
    return outcome == Outcome.SUCCESS;
  }
}
