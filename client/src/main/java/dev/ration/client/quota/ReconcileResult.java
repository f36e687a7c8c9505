package dev.ration.client.quota;

import dev.ration.wire.Outcome;
import java.util.List;

/**
 * The answer to {@link QuotaClient#reconcile} and {@link QuotaClient#repair}.
 *
 * @param outcome {@link Outcome#SUCCESS}, or the ledger's refusal of a repair
 * @param message the ledger's explanation of a refusal; empty on success
 * @param drifts the differences found (after a repair, each with its compensation); empty when
 *     the period is consistent
 */
public record ReconcileResult(Outcome outcome, String message, List<UsageDrift> drifts) {
  /**
   * A result; {@code drifts} is copied.
   *
   * @param outcome the outcome
   * @param message the explanation of a refusal
   * @param drifts the differences found
   */
  public ReconcileResult {
    drifts = List.copyOf(drifts);
  }

  /**
   * Whether the reconciliation ran.
   *
   * @return true when {@link #outcome} is {@link Outcome#SUCCESS}
   */
  public boolean succeeded() {
    return outcome == Outcome.SUCCESS;
  }
}
