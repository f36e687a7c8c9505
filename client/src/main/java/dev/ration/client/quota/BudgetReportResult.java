package dev.ration.client.quota;

import dev.ration.client.time.LedgerTime;
import dev.ration.wire.Outcome;

/**
 * One report's answer.
 *
 * @param outcome {@link Outcome#SUCCESS}, or why the report was refused (an unknown budget, a
 *     spend that went down or beyond the grant)
 * @param message the server's explanation of a refusal; empty on success
 * @param budgetId on success, the budget
 * @param granted on success, the amount granted after the report
 * @param spent on success, the spend counted
 * @param expiresAt on success, when the holder must stop spending from it (ledger time)
 * @param windowEnd on success, when the earliest of its windows ends (ledger time)
 * @param ended on success, whether it admits nothing more (its lease lapsed or its window
 *     ended): the holder stops spending and returns it
 * @param resent on success, whether the report's sequence was counted before (nothing changed)
 * @param at on success, the ledger time of the answer: the renewed lease runs from here
 */
public record BudgetReportResult(Outcome outcome, String message, long budgetId, long granted,
    long spent, LedgerTime expiresAt, LedgerTime windowEnd, boolean ended, boolean resent,
    LedgerTime at) {
  /**
   * Whether the report was counted (or found counted before).
   *
   * @return true when {@link #outcome} is {@link Outcome#SUCCESS}
   */
  public boolean succeeded() {
    return outcome == Outcome.SUCCESS;
  }
}
