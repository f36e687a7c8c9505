package dev.ration.client.quota;

import dev.ration.client.time.LedgerTime;

/**
 * A budget as the ledger holds it (held, or lapsed and still counted until its windows end).
 *
 * @param budgetId the budget
 * @param holder who holds it
 * @param scope the scope path it was granted at
 * @param resource the resource
 * @param granted the amount counted at every level of the path
 * @param spent the holder's cumulative spend as last reported
 * @param reportSequence the last report's sequence (0: none yet)
 * @param grantedAt when it was granted (ledger time)
 * @param expiresAt when its holder must stop spending from it (ledger time)
 * @param windowEnd when the earliest of its windows ends (ledger time)
 * @param keepUntil when the latest of its windows ends: a lapsed budget is dropped then
 * @param lapsed whether its lease ran out without a return (it admits nothing more)
 */
public record BudgetInfo(long budgetId, String holder, String scope, String resource,
    long granted, long spent, long reportSequence, LedgerTime grantedAt, LedgerTime expiresAt,
    LedgerTime windowEnd, LedgerTime keepUntil, boolean lapsed) {}
