package dev.ration.statemachine.lease;

/**
 * A limit with its ledger: Σ counted and Σ granted shares over live leases, the returned-token
 * pool, the number of leases and of unacknowledged shrinks, and the invariant ceilings
 * (equal to R and B except while a decrease of the limit is being absorbed).
 */
public record LimitStatus(
    Limit limit,
    long countedRate,
    long countedBurst,
    long grantedRate,
    long grantedBurst,
    long pool,
    int leases,
    int pendingShrinks,
    long rateCeiling,
    long burstCeiling,
    long emergencyReported) {}
