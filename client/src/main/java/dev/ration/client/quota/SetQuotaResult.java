package dev.ration.client.quota;

import dev.ration.wire.Outcome;
import java.util.Optional;

/**
 * The coordinator's answer to {@link QuotaClient#setQuota}.
 *
 * @param outcome {@link Outcome#SUCCESS}, or e.g. {@link Outcome#STALE_CONFIG}
 * @param message the server's explanation of a refusal; empty on success
 * @param currentVersion with {@link Outcome#STALE_CONFIG}, the version in force
 * @param quota on success, the entry as now configured
 */
public record SetQuotaResult(Outcome outcome, String message, long currentVersion,
    Optional<QuotaStatus> quota) {
  /**
   * Whether the entry was set.
   *
   * @return true when {@link #outcome} is {@link Outcome#SUCCESS}
   */
  public boolean succeeded() {
    return outcome == Outcome.SUCCESS;
  }
}
