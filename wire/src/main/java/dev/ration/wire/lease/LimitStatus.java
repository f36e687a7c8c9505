package dev.ration.wire.lease;

/**
 * A limit with its ledger: Σ counted and Σ granted shares over live leases, the returned-token
 * pool, the number of leases and of unacknowledged shrinks, and the invariant ceilings
 * (equal to R and B except while a decrease of the limit is being absorbed).
 * {@code demandRate}/{@code demandBurst}: Σ of the demand last reported by the holders of
 * leases not yet expired (saturating) — what the demand-driven policies split R and B over.
 * Counted − granted is the capacity held by unacknowledged shrinks.
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
    long emergencyReported,
    long demandRate,
    long demandBurst) {

  /** Without demand figures (both 0). */
  public LimitStatus(Limit limit, long countedRate, long countedBurst, long grantedRate,
      long grantedBurst, long pool, int leases, int pendingShrinks, long rateCeiling,
      long burstCeiling, long emergencyReported) {
    this(limit, countedRate, countedBurst, grantedRate, grantedBurst, pool, leases,
        pendingShrinks, rateCeiling, burstCeiling, emergencyReported, 0, 0);
  }

  public LimitStatus withDemand(long rate, long burst) {
    return new LimitStatus(limit, countedRate, countedBurst, grantedRate, grantedBurst, pool,
        leases, pendingShrinks, rateCeiling, burstCeiling, emergencyReported, rate, burst);
  }
}
