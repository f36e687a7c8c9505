package dev.ration.client.quota;

import dev.ration.wire.Outcome;

/**
 * The answer to a budget's return.
 *
 * @param outcome {@link Outcome#SUCCESS}, or why it was refused ({@link Outcome#BUDGET_UNKNOWN}:
 *     returned before, or dropped after its windows ended)
 * @param message the server's explanation of a refusal; empty on success
 * @param budgetId the budget
 * @param spent on success, the final spend counted
 * @param released on success, the unspent amount given back to the windows still running
 */
public record BudgetReturn(Outcome outcome, String message, long budgetId, long spent,
    long released) {
  /**
   * Whether the budget was returned.
   *
   * @return true when {@link #outcome} is {@link Outcome#SUCCESS}
   */
  public boolean succeeded() {
    return outcome == Outcome.SUCCESS;
  }
}
