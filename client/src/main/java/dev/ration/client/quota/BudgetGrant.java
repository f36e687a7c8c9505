package dev.ration.client.quota;

import dev.ration.client.time.LedgerTime;
import dev.ration.wire.Outcome;
import java.time.Duration;

/**
 * The coordinator's answer to a budget grant: the budget, or the refusal with the level that
 * had nothing left (docs/QUOTAS.md, "Budgets and the quota limiter").
 *
 * @param outcome {@link Outcome#SUCCESS} or why nothing was granted
 * @param message the server's explanation of a refusal; empty on success
 * @param levelScope with a refusal, the first level (from the top) that had nothing left
 * @param resource with a refusal, the resource refused
 * @param retryAfter with a refusal, when that level's window rolls over ({@link Duration#ZERO}
 *     = unknown)
 * @param budgetId on success, the budget
 * @param granted on success, the amount counted at every level (at most what was asked)
 * @param expiresAt on success, when the holder must stop spending from it (ledger time): its
 *     lease's end, never past its earliest window's end
 * @param windowEnd on success, when the earliest of its windows ends (ledger time)
 * @param configVersion on success, the newest catalog version among its levels
 * @param at on success, the ledger time of the grant: the lease runs from here
 * @param overdraft on success, how much more the holder may admit from it in all while it cannot
 *     reach the cluster, reported and billed as overage when it reconnects (0 unless every level
 *     is a soft quota, {@code Overage.OVERDRAFT})
 */
public record BudgetGrant(Outcome outcome, String message, String levelScope, String resource,
    Duration retryAfter, long budgetId, long granted, LedgerTime expiresAt, LedgerTime windowEnd,
    long configVersion, LedgerTime at, long overdraft) {
  /**
   * Whether a budget was granted.
   *
   * @return true when {@link #outcome} is {@link Outcome#SUCCESS}
   */
  public boolean succeeded() {
    return outcome == Outcome.SUCCESS;
  }
}
