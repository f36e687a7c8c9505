package dev.ration.statemachine.lease;

/**
 * One lease as the ledger keeps it: the current version's shares and times, plus the pending
 * part of a two-phase shrink.
 *
 * <p>{@code pendingRate}/{@code pendingBurst} are the largest shares of versions the holder has
 * not acknowledged yet, counted until {@code pendingUntilMillis} (or until the holder presents
 * the current version). No pending shrink is represented by both pending shares being 0 (a
 * shrink always leaves a positive old share in the dimension that shrank).
 *
 * <p>{@code demandRatePerSecond}/{@code demandBurst} are the demand the holder last reported
 * (acquire or renew): the input of the demand-driven policies for every <i>other</i> holder's
 * allocation until this holder reports again.
 *
 * <p>Invariants: counted ≥ share in both dimensions (I2, by construction of
 * {@link #countedRate()}); pendingUntil ≤ countedUntil; expiresAt ≤ countedUntil.
 */
public record Lease(
    long leaseId,
    String tenant,
    String resource,
    String holder,
    long epoch,
    long version,
    long rateShare,
    long burstShare,
    long grantedAtMillis,
    long expiresAtMillis,
    long countedUntilMillis,
    long pendingRate,
    long pendingBurst,
    long pendingUntilMillis,
    long demandRatePerSecond,
    long demandBurst) {

  public boolean hasPending() {
    return pendingRate != 0 || pendingBurst != 0;
  }

  public long countedRate() {
    return Math.max(rateShare, pendingRate);
  }

  public long countedBurst() {
    return Math.max(burstShare, pendingBurst);
  }

  public Shares demand() {
    return new Shares(demandRatePerSecond, demandBurst);
  }

  public LimitKey limitKey() {
    return new LimitKey(tenant, resource);
  }

  Lease withTimes(long countedUntil, long pendingUntil) {
    return new Lease(leaseId, tenant, resource, holder, epoch, version, rateShare, burstShare,
        grantedAtMillis, expiresAtMillis, countedUntil, pendingRate, pendingBurst, pendingUntil,
        demandRatePerSecond, demandBurst);
  }

  Lease withoutPending() {
    return new Lease(leaseId, tenant, resource, holder, epoch, version, rateShare, burstShare,
        grantedAtMillis, expiresAtMillis, countedUntilMillis, 0, 0, 0, demandRatePerSecond,
        demandBurst);
  }
}
