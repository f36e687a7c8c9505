package dev.ration.client.quota;

import java.time.Duration;

/**
 * What a budget's holder reports on renewal (docs/QUOTAS.md, "Budgets and the quota limiter").
 *
 * @param budgetId the budget
 * @param spent the holder's cumulative spend from it: never less than in an earlier report, never
 *     more than granted
 * @param sequence this report's sequence, above every earlier report's of the budget (a report
 *     whose sequence is not is resent and counts nothing)
 * @param wantAmount the total the holder wants granted from now (grown from what every level
 *     has free, or shrunk, never below {@code spent}); a holder asking for less stops spending
 *     above it before it sends the report
 * @param lease how long to renew the budget for, from the ledger's time of the report
 */
public record BudgetReport(long budgetId, long spent, long sequence, long wantAmount,
    Duration lease) {}
