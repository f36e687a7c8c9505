package dev.ration.statemachine.lease;

import dev.ration.statemachine.placement.MintedIds;
import dev.ration.wire.lease.Limit;

import dev.ration.statemachine.InvariantViolation;
import dev.ration.statemachine.replica.ExpiryKey;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The lease ledger's invariants recomputed from scratch (I1 conservation, I2 lease shapes, I5
 * limit aggregates, I6 the in-memory expiry index, I7 ids and versions, I8 pools), each
 * violation an {@link InvariantViolation} naming every value. Run at open, at snapshot and
 * after every entry in tests; the ledger's incremental checks after each command cover only
 * what the command touched.
 *
 * <p>Stateless; called on the single applying thread.
 */
final class LeaseVerifier {
  private LeaseVerifier() {}

  /** I2: a lease's shares and counted amounts and times are consistent. */
  static void checkLease(Lease lease) {

    if (lease.rateShare() < 0 || lease.burstShare() < 0 || lease.slotShare() < 0
        || lease.pendingSlots() < 0 || lease.demandSlots() < 0
        || lease.countedRate() < lease.rateShare() || lease.countedBurst() < lease.burstShare()
        || lease.countedUntilMillis() < lease.expiresAtMillis()
        || (lease.hasPending() && lease.pendingUntilMillis() > lease.countedUntilMillis())) {
      throw new InvariantViolation("I2 lease " + lease.leaseId() + " shares rate "
          + lease.rateShare() + " burst " + lease.burstShare() + " counted rate "
          + lease.countedRate() + " burst " + lease.countedBurst() + " slots " + lease.slotShare()
          + " pending slots " + lease.pendingSlots() + " demand slots " + lease.demandSlots()
          + " expiresAt "
          + lease.expiresAtMillis() + " countedUntil " + lease.countedUntilMillis()
          + " pendingUntil " + lease.pendingUntilMillis());
    }
  }

  static void verify(Map<LimitKey, LimitLedger> limits, Collection<Lease> leases,
      LeaseExpiryIndex expiry, long nextLeaseId, long nextVersion) {
    if (nextLeaseId < 1 || nextVersion < 1) {
      throw new InvariantViolation("I7 counters nextLeaseId " + nextLeaseId + " nextVersion " + nextVersion);
    }
    Map<LimitKey, long[]> sums = new HashMap<>();
    Map<LimitKey, TreeMap<Long, Integer>> freeTimes = new HashMap<>();
    long ownKeys = 0;
    Set<Long> versions = new HashSet<>();
    for (LimitLedger ledger : limits.values()) {
      Limit limit = ledger.limit();
      if (limit.version() <= 0 || limit.version() >= nextVersion || !versions.add(limit.version())) {
        throw new InvariantViolation("I7 limit " + limit.tenant() + "/" + limit.resource()
            + " version " + limit.version() + " not unique or not below nextVersion " + nextVersion);
      }
      sums.put(new LimitKey(limit.tenant(), limit.resource()), new long[8]);
    }
    for (Lease lease : leases) {
      checkLease(lease);
      MintedIds.verify("I7", "lease", lease.leaseId(), lease.tenant(), nextLeaseId);
      if (lease.version() <= 0 || lease.version() >= nextVersion || !versions.add(lease.version())) {
        throw new InvariantViolation("I7 lease " + lease.leaseId() + " version " + lease.version()
            + " not unique or not below nextVersion " + nextVersion);
      }
      long[] sum = sums.get(lease.limitKey());
      if (sum == null) {
        throw new InvariantViolation("I5 lease " + lease.leaseId() + " has no limit "
            + lease.tenant() + "/" + lease.resource());
      }
      sum[0] += lease.countedRate();
      sum[1] += lease.countedBurst();
      sum[2] += lease.rateShare();
      sum[3] += lease.burstShare();
      sum[4] += lease.hasPending() ? 1 : 0;
      sum[5] += 1;
      sum[6] += lease.countedSlots();
      sum[7] += lease.slotShare();
      freeTimes.computeIfAbsent(lease.limitKey(), k -> new TreeMap<>())
          .merge(LimitLedger.freeTime(lease), 1, Integer::sum);
      if (!expiry.holds(ExpiryKey.leaseEnd(lease.countedUntilMillis(), lease.leaseId()))) {
        throw new InvariantViolation("I6 lease " + lease.leaseId() + " countedUntil "
            + lease.countedUntilMillis() + " has no expiry record");
      }
      if (lease.hasPending()
          && !expiry.holds(ExpiryKey.pendingEnd(lease.pendingUntilMillis(), lease.leaseId()))) {
        throw new InvariantViolation("I6 lease " + lease.leaseId() + " pendingUntil "
            + lease.pendingUntilMillis() + " has no expiry record");
      }
      ownKeys += lease.hasPending() ? 2 : 1;
    }
    if (expiry.size() != ownKeys) {
      throw new InvariantViolation("I6 the lease index holds " + expiry.size()
          + " records but the live leases own " + ownKeys + " (a stale record was left behind)");
    }
    for (LimitLedger ledger : limits.values()) {
      Limit limit = ledger.limit();
      long[] sum = sums.get(new LimitKey(limit.tenant(), limit.resource()));
      if (sum[0] != ledger.countedRate() || sum[1] != ledger.countedBurst()
          || sum[2] != ledger.grantedRate() || sum[3] != ledger.grantedBurst()
          || sum[4] != ledger.pendingShrinks() || sum[5] != ledger.leaseCount()) {
        throw new InvariantViolation(String.format(
            "I5 aggregates of %s/%s: counted rate %d (recomputed %d), counted burst %d (%d), "
                + "granted rate %d (%d), granted burst %d (%d), pending %d (%d), leases %d (%d)",
            limit.tenant(), limit.resource(), ledger.countedRate(), sum[0], ledger.countedBurst(),
            sum[1], ledger.grantedRate(), sum[2], ledger.grantedBurst(), sum[3],
            ledger.pendingShrinks(), sum[4], ledger.leaseCount(), sum[5]));
      }
      if (sum[6] != ledger.countedSlots() || sum[7] != ledger.grantedSlots()) {
        throw new InvariantViolation(String.format(
            "I5 slot aggregates of %s/%s: counted slots %d (recomputed %d), granted slots %d (%d)",
            limit.tenant(), limit.resource(), ledger.countedSlots(), sum[6],
            ledger.grantedSlots(), sum[7]));
      }
      if (ledger.concurrency() < 0 || ledger.slotCeiling() < ledger.concurrency()
          || ledger.countedSlots() > ledger.slotCeiling()) {
        throw new InvariantViolation(String.format(
            "I12 slot conservation of %s/%s: counted slots %d, slot ceiling %d, C %d",
            limit.tenant(), limit.resource(), ledger.countedSlots(), ledger.slotCeiling(),
            ledger.concurrency()));
      }
      TreeMap<Long, Integer> recomputed = freeTimes.getOrDefault(
          new LimitKey(limit.tenant(), limit.resource()), new TreeMap<>());
      if (!recomputed.equals(ledger.freeTimes())) {
        throw new InvariantViolation("I5 free times of " + limit.tenant() + "/" + limit.resource()
            + ": index " + ledger.freeTimes() + ", recomputed " + recomputed);
      }
      if (ledger.countedRate() > ledger.rateCeiling()
          || ledger.countedBurst() + ledger.pool() > ledger.burstCeiling()
          || ledger.rateCeiling() < limit.ratePerSecond() || ledger.burstCeiling() < limit.burst()) {
        throw new InvariantViolation(String.format(
            "I1 conservation of %s/%s: counted rate %d, rate ceiling %d, R %d; counted burst %d "
                + "+ pool %d, burst ceiling %d, B %d",
            limit.tenant(), limit.resource(), ledger.countedRate(), ledger.rateCeiling(),
            limit.ratePerSecond(), ledger.countedBurst(), ledger.pool(), ledger.burstCeiling(),
            limit.burst()));
      }
      if (ledger.pool() < 0) {
        throw new InvariantViolation("I8 pool of " + limit.tenant() + "/" + limit.resource()
            + " is negative: " + ledger.pool());
      }
    }
  }
}
