package dev.ration.client.ttl;

import dev.ration.wire.Outcome;

/**
 * The answer to a delete.
 *
 * @param outcome {@link Outcome#SUCCESS}, or {@link Outcome#VERSION_MISMATCH} when an expected
 *     version was given and the live entry has another
 * @param message the server's explanation of a refusal; empty on success
 * @param existed on success, whether a live entry was there to delete
 * @param currentVersion with {@link Outcome#VERSION_MISMATCH}, the live version (0 = absent)
 */
public record DeleteResult(Outcome outcome, String message, boolean existed, long currentVersion) {
  /**
   * Whether a live entry was deleted.
   *
   * @return true when the delete succeeded and an entry was there
   */
  public boolean deleted() {
    return outcome == Outcome.SUCCESS && existed;
  }
}
