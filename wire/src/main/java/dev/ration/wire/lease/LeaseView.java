package dev.ration.wire.lease;

import dev.ration.wire.Mode;

/**
 * What a holder (or an operator) sees of a lease. {@code rateShare}/{@code burstShare} are the
 * shares of the current version; {@code countedRate}/{@code countedBurst} are what the ledger
 * still counts against the limit (larger while a shrink is unacknowledged); {@code countedUntilMillis}
 * is the ledger time at which the ledger stops counting the lease at all.
 */
public record LeaseView(
    long leaseId,
    String tenant,
    String resource,
    String holder,
    long epoch,
    long version,
    long rateShare,
    long burstShare,
    long countedRate,
    long countedBurst,
    long grantedAtMillis,
    long expiresAtMillis,
    long countedUntilMillis,
    Mode mode,
    long emergency,
    long leaseDurationMillis) {}
