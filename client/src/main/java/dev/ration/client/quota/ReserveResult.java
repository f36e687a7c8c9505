package dev.ration.client.quota;

import dev.ration.client.time.LedgerTime;
import dev.ration.wire.Outcome;
import java.time.Duration;
import java.util.List;

/**
 * The coordinator's answer to a reserve: the reservation, or the refusal with the refusing
 * level.
 *
 * @param outcome {@link Outcome#SUCCESS} or why the reservation was refused
 * @param message the server's explanation of a refusal; empty on success
 * @param levelScope with a refusal, the scope whose entry refused
 * @param resource with a refusal, the resource refused
 * @param retryAfter with a refusal, when trying again may succeed ({@link Duration#ZERO} =
 *     unknown: use a bounded retry policy)
 * @param currentVersion with {@link Outcome#STALE_CONFIG}, the catalog version in force
 * @param reservationId on success, the reservation
 * @param expiresAt on success, when the reservation expires unless settled (ledger time)
 * @param configVersion on success, the catalog version it was judged against
 * @param items on success, what was reserved
 */
public record ReserveResult(Outcome outcome, String message, String levelScope, String resource,
    Duration retryAfter, long currentVersion, long reservationId, LedgerTime expiresAt,
    long configVersion, List<ReservedItem> items) {
  /**
   * A result; {@code items} is copied.
   *
   * @param outcome the outcome
   * @param message the message
   * @param levelScope the refusing scope
   * @param resource the refused resource
   * @param retryAfter the retry hint
   * @param currentVersion the catalog version in force
   * @param reservationId the reservation
   * @param expiresAt its expiry
   * @param configVersion the catalog version judged
   * @param items what was reserved
   */
  public ReserveResult {
    items = List.copyOf(items);
  }

  /**
   * Whether the reservation was granted.
   *
   * @return true when {@link #outcome} is {@link Outcome#SUCCESS}
   */
  public boolean succeeded() {
    return outcome == Outcome.SUCCESS;
  }
}
