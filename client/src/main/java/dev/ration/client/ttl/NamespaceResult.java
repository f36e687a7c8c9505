package dev.ration.client.ttl;

import dev.ration.wire.Outcome;
import java.util.Optional;

/**
 * The answer to {@link TtlEntries#setNamespace}.
 *
 * @param outcome {@link Outcome#SUCCESS} or why the change was refused
 * @param message the server's explanation of a refusal; empty on success
 * @param namespace on success the namespace as now configured, with its counters
 */
public record NamespaceResult(Outcome outcome, String message, Optional<NamespaceInfo> namespace) {
  /**
   * Whether the namespace was created or reconfigured.
   *
   * @return true when {@link #outcome} is {@link Outcome#SUCCESS}
   */
  public boolean succeeded() {
    return outcome == Outcome.SUCCESS;
  }
}
