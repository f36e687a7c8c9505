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
 * <p>{@code slotShare}/{@code pendingSlots}/{@code demandSlots} are the same three for
 * concurrency slots (a share of the limit's cap C): one lease may hold rate, burst and slots,
 * and a pending shrink of any of them ends at the one {@code pendingUntilMillis}. A lease
 * acquired for rate holds 0 slots and one acquired for slots holds rate and burst 0.
 *
 * <p>Invariants: counted ≥ share in every dimension (I2, by construction of
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
    long demandBurst,
    long slotShare,
    long pendingSlots,
    long demandSlots) {

  /** A lease without slots (rate and burst only). */
  public Lease(long leaseId, String tenant, String resource, String holder, long epoch,
      long version, long rateShare, long burstShare, long grantedAtMillis, long expiresAtMillis,
      long countedUntilMillis, long pendingRate, long pendingBurst, long pendingUntilMillis,
      long demandRatePerSecond, long demandBurst) {
    this(leaseId, tenant, resource, holder, epoch, version, rateShare, burstShare,
        grantedAtMillis, expiresAtMillis, countedUntilMillis, pendingRate, pendingBurst,
        pendingUntilMillis, demandRatePerSecond, demandBurst, 0, 0, 0);
  }

  public boolean hasPending() {
    return pendingRate != 0 || pendingBurst != 0 || pendingSlots != 0;
  }

  /** Slots the ledger counts against C: the current share, or more while a shrink is pending. */
  public long countedSlots() {
    return Math.max(slotShare, pendingSlots);
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

  /** A lease granted now that holds nothing yet: {@link Leased#holding} gives it its share. */
  static Lease granted(long leaseId, String tenant, String resource, String holder, long epoch,
      long version, long grantedAtMillis, long expiresAtMillis, long countedUntilMillis) {
    return new Lease(leaseId, tenant, resource, holder, epoch, version, 0, 0, grantedAtMillis,
        expiresAtMillis, countedUntilMillis, 0, 0, 0, 0, 0, 0, 0, 0);
  }

  /** The next version of this lease with its shares kept and {@code pending} counted. */
  Lease renewed(long epoch, long version, long grantedAtMillis, long expiresAtMillis,
      long countedUntilMillis, PendingShrink pending) {
    return new Lease(leaseId, tenant, resource, holder, epoch, version, rateShare, burstShare,
        grantedAtMillis, expiresAtMillis, countedUntilMillis, pending.rate(), pending.burst(),
        pending.untilMillis(), demandRatePerSecond, demandBurst, slotShare, pending.slots(),
        demandSlots);
  }

  /** This lease with rate and burst {@code share} and the holder's new {@code demand}. */
  Lease withRate(Shares share, Shares demand) {
    return new Lease(leaseId, tenant, resource, holder, epoch, version, share.ratePerSecond(),
        share.burst(), grantedAtMillis, expiresAtMillis, countedUntilMillis, pendingRate,
        pendingBurst, pendingUntilMillis, demand.ratePerSecond(), demand.burst(), slotShare,
        pendingSlots, demandSlots);
  }

  /** This lease with slot {@code share} and the holder's new slot {@code demand}. */
  Lease withSlots(long share, long demand) {
    return new Lease(leaseId, tenant, resource, holder, epoch, version, rateShare, burstShare,
        grantedAtMillis, expiresAtMillis, countedUntilMillis, pendingRate, pendingBurst,
        pendingUntilMillis, demandRatePerSecond, demandBurst, share, pendingSlots, demand);
  }

  Lease withTimes(long countedUntil, long pendingUntil) {
    return new Lease(leaseId, tenant, resource, holder, epoch, version, rateShare, burstShare,
        grantedAtMillis, expiresAtMillis, countedUntil, pendingRate, pendingBurst, pendingUntil,
        demandRatePerSecond, demandBurst, slotShare, pendingSlots, demandSlots);
  }

  Lease withoutPending() {
    return new Lease(leaseId, tenant, resource, holder, epoch, version, rateShare, burstShare,
        grantedAtMillis, expiresAtMillis, countedUntilMillis, 0, 0, 0, demandRatePerSecond,
        demandBurst, slotShare, 0, demandSlots);
  }
}
