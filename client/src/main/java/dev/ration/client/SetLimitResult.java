package dev.ration.client;

import dev.ration.wire.Outcome;
import dev.ration.client.limiter.LimitInfo;
import java.util.Optional;

/**
 * The ledger's answer to {@link RationClient#setLimit}.
 *
 * @param outcome {@link Outcome#SUCCESS}, or e.g. {@link Outcome#STALE_CONFIG} when the expected
 *     version is not the one in force
 * @param message the server's explanation of a refusal; empty on success
 * @param currentVersion with {@link Outcome#STALE_CONFIG}, the version in force
 * @param limit on success, the limit as now configured
 */
public record SetLimitResult(Outcome outcome, String message, long currentVersion,
    Optional<LimitInfo> limit) {
  /**
   * Whether the limit was set.
   *
   * @return true when {@link #outcome} is {@link Outcome#SUCCESS}
   */
  public boolean succeeded() {
    return outcome == Outcome.SUCCESS;
  }
}
