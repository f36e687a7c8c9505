package dev.ration.client;

import dev.ration.wire.Outcome;
import dev.ration.client.limiter.LeaseInfo;
import java.time.Duration;
import java.util.Optional;

/**
 * The ledger's answer to an acquire or a renewal. Refusals are values: {@link
 * Outcome#LIMIT_EXHAUSTED}, {@link Outcome#LEASE_EXPIRED}, {@link Outcome#STALE_CONFIG}...
 *
 * @param outcome {@link Outcome#SUCCESS} or why the lease was refused
 * @param message the server's explanation of a refusal; empty on success
 * @param retryAfter with a refusal, when asking again may succeed ({@link Duration#ZERO} = unknown)
 * @param currentVersion with a version refusal, the lease version in force
 * @param lease on success, the granted lease version
 * @param startBalance on an acquire, tokens handed over from the returned-token pool
 */
public record LeaseResult(Outcome outcome, String message, Duration retryAfter,
    long currentVersion, Optional<LeaseInfo> lease, long startBalance) {
  /**
   * Whether the lease was granted.
   *
   * @return true when {@link #outcome} is {@link Outcome#SUCCESS}
   */
  public boolean succeeded() {
    return outcome == Outcome.SUCCESS;
  }
}
