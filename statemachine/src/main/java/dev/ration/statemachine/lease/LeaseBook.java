package dev.ration.statemachine.lease;

import dev.ration.wire.placement.SlotIds;
import dev.ration.wire.placement.Slots;
import dev.ration.statemachine.InvariantViolation;
import dev.ration.statemachine.replica.ApplyContext;
import dev.ration.statemachine.replica.ExpiryKey;
import dev.ration.wire.lease.Limit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/**
 * The lease ledger's books: every limit, every lease, the lease kinds of the expiry index, the
 * ledger's copy of now, the epoch and the lease-id counter — and the bookkeeping that keeps them
 * in step. The rooms of the lease ledger ({@link Leasing}, {@link LimitSetting},
 * {@link LeaseExpiry}, {@link LeaseReads}) hold no state of their own; they read and change it
 * here, so there is one place where a lease enters or leaves a limit.
 *
 * <p>Every change of a lease goes through {@link #putLease} or {@link #removeLease}, which move
 * the limit's aggregates, the expiry index and the entry's change sets together; a room that
 * wrote a lease any other way would break I5 and I6.
 *
 * <p>Thread: the single applying thread.
 *
 * <p>Invariants: a lease's limit exists (I5, {@link #ledgerOf}); the lease kinds of the expiry
 * index are exactly one record per lease plus one per pending shrink (I6, kept by
 * {@link LeaseExpiryIndex#sync}); every limit and lease the entry changed is in the change sets
 * until {@link #writeChanges}, and every one the command touched is checked by
 * {@link #checkTouched} (I1, I2, I8, I12).
 */
final class LeaseBook {
  private final ApplyContext context;
  private final TreeMap<LimitKey, LimitLedger> limits = new TreeMap<>();
  private final HashMap<Long, Lease> leases = new HashMap<>();
  /** The lease kinds of the expiry index, held only in memory (see {@link LeaseExpiryIndex}). */
  private final LeaseExpiryIndex expiry = new LeaseExpiryIndex();

  /** The replica's now, mirrored at the start of each entry. */
  private long nowMillis = 0;
  private long epoch = 0;
  private long epochStartMillis = 0;
  private long nextLeaseId = 1;

  /**
   * Limits and leases the current entry changed (or removed): written to their column families
   * at the end of the entry, in the entry's one WriteBatch.
   */
  private final Set<LimitKey> changedLimits = new HashSet<>();
  private final Set<Long> changedLeases = new HashSet<>();

  /** Limits and leases the current command touched, for the incremental invariant check. */
  private final List<LimitLedger> touchedLimits = new ArrayList<>();
  private final List<Lease> touchedLeases = new ArrayList<>();

  LeaseBook(ApplyContext context) {
    this.context = context;
  }

  // ---------------------------------------------------------------- time, epoch, ids

  long nowMillis() {
    return nowMillis;
  }

  void beginEntry(long nowMillis) {
    this.nowMillis = nowMillis;
  }

  long epoch() {
    return epoch;
  }

  long epochStartMillis() {
    return epochStartMillis;
  }

  /** A new leader's epoch starts now. */
  void startEpoch() {
    epoch++;
    epochStartMillis = nowMillis;
  }

  /** The counter part of the next granted lease's id ({@link SlotIds#counterPart}): every
   *  lease id ever minted here has a smaller one. */
  long nextLeaseId() {
    return SlotIds.counterPart(nextLeaseId);
  }

  /** The stored counter, which also says whether ids carry slots ({@link SlotIds#mint}). */
  long storedLeaseCounter() {
    return nextLeaseId;
  }

  /** From now on, lease ids carry their tenant's slot. */
  void mintSlottedIds() {
    nextLeaseId = SlotIds.slottedCounter(nextLeaseId);
  }

  /** The id the next lease granted to {@code tenant} gets. */
  long peekLeaseId(String tenant) {
    return SlotIds.mint(nextLeaseId, Slots.of(tenant));
  }

  /** Takes {@link #peekLeaseId} for a lease being granted to {@code tenant}. */
  long mintLeaseId(String tenant) {
    long id = peekLeaseId(tenant);
    nextLeaseId++;
    return id;
  }

  void restoreMeta(long epoch, long epochStart, long nextLeaseId) {
    this.epoch = epoch;
    this.epochStartMillis = epochStart;
    this.nextLeaseId = nextLeaseId;
  }

  // ---------------------------------------------------------------- limits and leases

  /** Every limit in key order. */
  TreeMap<LimitKey, LimitLedger> limits() {
    return limits;
  }

  /** The limit of {@code key}, or null. */
  LimitLedger limit(LimitKey key) {
    return limits.get(key);
  }

  /** A new limit (SetLimit of a key not configured yet). */
  void addLimit(LimitKey key, LimitLedger ledger) {
    limits.put(key, ledger);
    touch(ledger);
  }

  /** Every lease the ledger counts, by id (in no order: sort before iterating for effect). */
  HashMap<Long, Lease> leases() {
    return leases;
  }

  /** The lease {@code leaseId} while counted, or null. */
  Lease lease(long leaseId) {
    return leases.get(leaseId);
  }

  LeaseExpiryIndex expiry() {
    return expiry;
  }

  /** The limit of a lease; its absence is I5 broken. */
  LimitLedger ledgerOf(Lease lease) {
    LimitLedger ledger = limits.get(lease.limitKey());
    if (ledger == null) {
      throw new InvariantViolation("I5 lease " + lease.leaseId() + " has no limit "
          + lease.tenant() + "/" + lease.resource());
    }
    return ledger;
  }

  /** Puts {@code lease} in place of {@code old} (null for a new lease) on {@code ledger}. */
  void putLease(Lease old, Lease lease, LimitLedger ledger) {
    if (old != null) {
      ledger.subtract(old);
    }
    ledger.add(lease);
    leases.put(lease.leaseId(), lease);
    changedLeases.add(lease.leaseId());
    touch(ledger);
    touchedLeases.add(lease);
    expiry.sync(old, lease, nowMillis);
  }

  /** Frees {@code lease}: its limit stops counting it and its expiry records go. */
  void removeLease(Lease lease, LimitLedger ledger) {
    ledger.subtract(lease);
    leases.remove(lease.leaseId());
    changedLeases.add(lease.leaseId());
    touch(ledger);
    expiry.sync(lease, null, nowMillis);
  }

  /** The limit changed in this command: write it at the end of the entry and check it. */
  void touch(LimitLedger ledger) {
    touchedLimits.add(ledger);
    changedLimits.add(new LimitKey(ledger.limit().tenant(), ledger.limit().resource()));
  }

  // ---------------------------------------------------------------- commands and entries

  void beginCommand() {
    touchedLimits.clear();
    touchedLeases.clear();
  }

  /** The incremental check after every command: I1 and I8 on touched limits, I2 on leases. */
  void checkTouched() {
    for (LimitLedger ledger : touchedLimits) {
      ledger.settleAndCheck(nowMillis);
    }
    for (Lease lease : touchedLeases) {
      LeaseVerifier.checkLease(lease);
    }
  }

  /** Writes every limit and lease the entry changed (or a delete for one that is gone). */
  void writeChanges() {
    for (LimitKey key : changedLimits) {
      LimitLedger limit = limits.get(key);
      if (limit != null) {
        context.changes().putRecord(LeaseFormat.LIMITS, LeaseFormat.limitKey(key),
            LeaseFormat.limitValue(limit));
      } else {
        context.changes().deleteRecord(LeaseFormat.LIMITS, LeaseFormat.limitKey(key));
      }
    }
    for (long id : changedLeases) {
      Lease lease = leases.get(id);
      if (lease != null) {
        context.changes().putRecord(LeaseFormat.LEASES, LeaseFormat.leaseKey(id),
            LeaseFormat.leaseValue(lease));
      } else {
        context.changes().deleteRecord(LeaseFormat.LEASES, LeaseFormat.leaseKey(id));
      }
    }
    changedLimits.clear();
    changedLeases.clear();
  }

  // ---------------------------------------------------------------- loading

  /** A limit with its stored ledger fields (its leases come after). */
  void restoreLimit(Limit limit, long pool, long rateCeiling, long burstCeiling,
      long emergencyReported, long concurrency, long slotCeiling) {
    limits.put(new LimitKey(limit.tenant(), limit.resource()),
        new LimitLedger(limit, pool, rateCeiling, burstCeiling, emergencyReported, concurrency,
            slotCeiling));
  }

  /** A lease and its index keys; its limit must be restored first. */
  void restoreLease(Lease lease) {
    ledgerOf(lease).add(lease);
    leases.put(lease.leaseId(), lease);
    expiry.restore(ExpiryKey.leaseEnd(lease.countedUntilMillis(), lease.leaseId()));
    if (lease.hasPending()) {
      expiry.restore(ExpiryKey.pendingEnd(lease.pendingUntilMillis(), lease.leaseId()));
    }
  }
}
