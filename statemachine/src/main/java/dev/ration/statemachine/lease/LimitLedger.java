package dev.ration.statemachine.lease;

import dev.ration.wire.lease.Limit;
import dev.ration.wire.lease.LimitStatus;

import dev.ration.statemachine.InvariantViolation;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One limit and its ledger: the configuration, Σ counted and Σ granted shares over its leases,
 * the returned-token pool, and the invariant ceilings.
 *
 * <p><b>Ceilings.</b> A limit may be lowered below what is currently counted. New grants then
 * need free capacity under the new R and B, and existing shares shrink on renewal (two-phase),
 * so Σ counted can stay above R for a while. Conservation is therefore checked against
 * {@code rateCeiling = max(R, Σ counted when it was last settled)}, which only falls (towards R)
 * as counted shares are freed and rises only when R is raised: after every command
 * {@code rateCeiling := max(R, min(rateCeiling, Σ counted rate))}, and likewise
 * {@code burstCeiling := max(B, min(burstCeiling, Σ counted burst + pool))}. I1 holds iff
 * Σ counted never exceeds max(R, previous ceiling).
 *
 * <p><b>Concurrency slots.</b> A limit may also carry a concurrency cap C (0: none), kept
 * beside the {@link Limit} (which the protocol and the log encode unchanged), with the same
 * ceiling rule: {@code slotCeiling := max(C, min(slotCeiling, Σ counted slots))}, and I12
 * holds iff Σ counted slots never exceeds max(C, previous slot ceiling).
 *
 * <p>Σ counted/granted, lease ids and the pending count are derived from the leases (recomputed
 * at load; I5 checks them); pool, ceilings, C and emergencyReported are stored. Thread: the
 * applying thread only.
 */
public final class LimitLedger {
  private Limit limit;
  private long countedRate;
  private long countedBurst;
  private long grantedRate;
  private long grantedBurst;
  private long pool;
  private long rateCeiling;
  private long burstCeiling;
  private long emergencyReported;
  private int pendingShrinks;
  private long concurrency;
  private long slotCeiling;
  private long countedSlots;
  private long grantedSlots;
  private final TreeSet<Long> leaseIds = new TreeSet<>();
  /**
   * When each lease's counted share (or its pending shrink) is next due to be freed, as a
   * multiset (time → how many leases): the Retry-After of a refusal is its first key, in
   * O(log n) rather than a walk over every lease of a limit that may hold thousands.
   */
  private final TreeMap<Long, Integer> freeAt = new TreeMap<>();

  LimitLedger(Limit limit, long pool, long rateCeiling, long burstCeiling, long emergencyReported) {
    this.limit = limit;
    this.pool = pool;
    this.rateCeiling = rateCeiling;
    this.burstCeiling = burstCeiling;
    this.emergencyReported = emergencyReported;
  }

  LimitLedger(Limit limit, long pool, long rateCeiling, long burstCeiling, long emergencyReported,
      long concurrency, long slotCeiling) {
    this(limit, pool, rateCeiling, burstCeiling, emergencyReported);
    this.concurrency = concurrency;
    this.slotCeiling = slotCeiling;
  }

  static LimitLedger fresh(Limit limit) {
    return new LimitLedger(limit, 0, limit.ratePerSecond(), limit.burst(), 0);
  }

  /**
   * A new configuration. Pool tokens that no longer fit under the new burst are dropped
   * (discarding returned tokens is always safe); the ceilings settle by the usual rule.
   */
  void reconfigure(Limit newLimit) {
    this.limit = newLimit;
    pool = Math.min(pool, Math.max(0, newLimit.burst() - countedBurst));
  }

  /**
   * A new concurrency cap. Lowering it revokes nothing: the slot ceiling settles by the usual
   * rule, new grants need free slots under the new C, and held shares shrink on renewal.
   */
  void setConcurrency(long newConcurrency) {
    this.concurrency = newConcurrency;
  }

  void add(Lease lease) {
    countedRate = Math.addExact(countedRate, lease.countedRate());
    countedBurst = Math.addExact(countedBurst, lease.countedBurst());
    grantedRate = Math.addExact(grantedRate, lease.rateShare());
    grantedBurst = Math.addExact(grantedBurst, lease.burstShare());
    countedSlots = Math.addExact(countedSlots, lease.countedSlots());
    grantedSlots = Math.addExact(grantedSlots, lease.slotShare());
    if (lease.hasPending()) {
      pendingShrinks++;
    }
    leaseIds.add(lease.leaseId());
    freeAt.merge(freeTime(lease), 1, Integer::sum);
  }

  void subtract(Lease lease) {
    countedRate -= lease.countedRate();
    countedBurst -= lease.countedBurst();
    grantedRate -= lease.rateShare();
    grantedBurst -= lease.burstShare();
    countedSlots -= lease.countedSlots();
    grantedSlots -= lease.slotShare();
    if (lease.hasPending()) {
      pendingShrinks--;
    }
    leaseIds.remove(lease.leaseId());
    long at = freeTime(lease);
    Integer n = freeAt.get(at);
    if (n == null) {
      throw new InvariantViolation("I5 lease " + lease.leaseId() + " of " + limit.tenant() + "/"
          + limit.resource() + " subtracted but never added (free time " + at + ")");
    }
    if (n == 1) {
      freeAt.remove(at);
    } else {
      freeAt.put(at, n - 1);
    }
  }

  /** When a lease's counted share next shrinks: its pending shrink if any, else countedUntil. */
  static long freeTime(Lease lease) {
    return lease.hasPending() ? lease.pendingUntilMillis() : lease.countedUntilMillis();
  }

  /** The earliest {@link #freeTime} over this limit's leases; Long.MAX_VALUE if none. */
  long earliestFreeTime() {
    return freeAt.isEmpty() ? Long.MAX_VALUE : freeAt.firstKey();
  }

  /** Leases per free time, for verification (I5). */
  TreeMap<Long, Integer> freeTimes() {
    return freeAt;
  }

  /** Capacity a new share may take: under the configured R and B, net of the pool. */
  Shares free() {
    return new Shares(
        Math.max(0, limit.ratePerSecond() - countedRate),
        Math.max(0, limit.burst() - countedBurst - pool));
  }

  /** Slots a new share may take: under the configured C. */
  long freeSlots() {
    return Math.max(0, concurrency - countedSlots);
  }

  /** Room in the pool for returned tokens: what fits under B next to the counted burst. */
  long poolRoom() {
    return Math.max(0, limit.burst() - countedBurst - pool);
  }

  void addToPool(long tokens) {
    pool = Math.addExact(pool, tokens);
  }

  void takeFromPool(long tokens) {
    pool -= tokens;
  }

  void reportEmergency(long used) {
    long sum = emergencyReported + used;
    emergencyReported = sum < emergencyReported ? Long.MAX_VALUE : sum;
  }

  /**
   * After a command touched this limit: lower the ceilings as far as the counted shares allow,
   * then check I1 and I8. Throws InvariantViolation naming every value.
   */
  void settleAndCheck(long nowMillis) {
    long newRateCeiling = Math.max(limit.ratePerSecond(), Math.min(rateCeiling, countedRate));
    long newBurstCeiling = Math.max(limit.burst(), Math.min(burstCeiling, countedBurst + pool));
    if (countedRate > newRateCeiling || countedBurst + pool > newBurstCeiling || pool < 0) {
      throw new InvariantViolation(String.format(
          "I1/I8 conservation broken for %s/%s at now=%d: counted rate %d, rate ceiling %d -> %d, "
              + "R %d; counted burst %d + pool %d, burst ceiling %d -> %d, B %d",
          limit.tenant(), limit.resource(), nowMillis, countedRate, rateCeiling, newRateCeiling,
          limit.ratePerSecond(), countedBurst, pool, burstCeiling, newBurstCeiling, limit.burst()));
    }
    long newSlotCeiling = Math.max(concurrency, Math.min(slotCeiling, countedSlots));
    if (countedSlots > newSlotCeiling || countedSlots < 0 || concurrency < 0) {
      throw new InvariantViolation(String.format(
          "I12 slot conservation broken for %s/%s at now=%d: counted slots %d, slot ceiling "
              + "%d -> %d, C %d",
          limit.tenant(), limit.resource(), nowMillis, countedSlots, slotCeiling, newSlotCeiling,
          concurrency));
    }
    rateCeiling = newRateCeiling;
    burstCeiling = newBurstCeiling;
    slotCeiling = newSlotCeiling;
  }

  /** The concurrency cap C; 0 when the limit has none. */
  public long concurrency() {
    return concurrency;
  }

  public long slotCeiling() {
    return slotCeiling;
  }

  public long countedSlots() {
    return countedSlots;
  }

  public long grantedSlots() {
    return grantedSlots;
  }

  public Limit limit() {
    return limit;
  }

  public long countedRate() {
    return countedRate;
  }

  public long countedBurst() {
    return countedBurst;
  }

  public long grantedRate() {
    return grantedRate;
  }

  public long grantedBurst() {
    return grantedBurst;
  }

  public long pool() {
    return pool;
  }

  public long rateCeiling() {
    return rateCeiling;
  }

  public long burstCeiling() {
    return burstCeiling;
  }

  public long emergencyReported() {
    return emergencyReported;
  }

  public int pendingShrinks() {
    return pendingShrinks;
  }

  public int leaseCount() {
    return leaseIds.size();
  }

  /** Ids of this limit's leases, ascending. Read-only by convention; do not mutate. */
  TreeSet<Long> leaseIds() {
    return leaseIds;
  }

  public LimitStatus status() {
    return new LimitStatus(limit, countedRate, countedBurst, grantedRate, grantedBurst, pool,
        leaseIds.size(), pendingShrinks, rateCeiling, burstCeiling, emergencyReported);
  }
}
