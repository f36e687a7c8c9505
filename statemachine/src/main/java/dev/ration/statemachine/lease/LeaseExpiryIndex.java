package dev.ration.statemachine.lease;

import dev.ration.statemachine.InvariantViolation;
import dev.ration.statemachine.replica.ExpiryKey;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The lease kinds of the expiry index (a lease's end and its pending shrink's end), held only
 * in memory: they follow from the leases (each live lease owns exactly leaseEnd(countedUntil)
 * and, while shrinking, pendingEnd(pendingUntil); I6), so they are rebuilt at load instead of
 * stored. Storing them cost two RocksDB writes per renewal and left a tombstone per renewal in
 * front of every scan of the stored index. Tick merges these keys with the stored kinds.
 *
 * <p>Thread: the single applying thread.
 */
final class LeaseExpiryIndex {
  private final TreeSet<ExpiryKey> keys = new TreeSet<>();

  /**
   * Keeps the lease kinds of the expiry index exact (I6): a live lease has exactly
   * leaseEnd(countedUntil) and, while it has a pending shrink, pendingEnd(pendingUntil); a
   * changed or gone lease withdraws its old keys at once. (Leaving them for Tick to pop as stale
   * cost one extra record per renewal: at 10,000 renewals a second Ticks fell behind, expired
   * leases stayed counted, and limits filled up; docs/benchmarks.md.) A key Tick already popped
   * is no longer in the index and is not withdrawn again.
   */
  void sync(Lease old, Lease now, long nowMillis) {
    ExpiryKey oldEnd = old == null ? null : ExpiryKey.leaseEnd(old.countedUntilMillis(), old.leaseId());
    ExpiryKey oldPending = old == null || !old.hasPending()
        ? null : ExpiryKey.pendingEnd(old.pendingUntilMillis(), old.leaseId());
    ExpiryKey newEnd = now == null ? null : ExpiryKey.leaseEnd(now.countedUntilMillis(), now.leaseId());
    ExpiryKey newPending = now == null || !now.hasPending()
        ? null : ExpiryKey.pendingEnd(now.pendingUntilMillis(), now.leaseId());
    if (oldEnd != null && !oldEnd.equals(newEnd)) {
      keys.remove(oldEnd);
    }
    if (oldPending != null && !oldPending.equals(newPending)) {
      keys.remove(oldPending);
    }
    if (newEnd != null && !newEnd.equals(oldEnd)) {
      add(newEnd, nowMillis);
    }
    if (newPending != null && !newPending.equals(oldPending)) {
      add(newPending, nowMillis);
    }
  }
  /** Loading: a live lease's key, rebuilt from the stored lease (due times may have passed). */
  void restore(ExpiryKey key) {
    keys.add(key);
  }

  /** Tick popped {@code key}: false if it was withdrawn already. */
  boolean remove(ExpiryKey key) {
    return keys.remove(key);
  }

  /** Every due time set is at or after now (I6): Tick pops the index as a queue. */
  private void add(ExpiryKey key, long nowMillis) {
    if (key.dueAtMillis() < nowMillis) {
      throw new InvariantViolation("I6 expiry record " + key + " due before now " + nowMillis);
    }
    keys.add(key);
  }

  /**
   * Up to {@code maxItems} keys strictly after {@code after} and due at or before
   * {@code dueUpToMillis}, in index order.
   */
  List<ExpiryKey> due(ExpiryKey after, long dueUpToMillis, int maxItems) {
    List<ExpiryKey> out = new ArrayList<>(Math.min(maxItems, 16));
    for (ExpiryKey key : keys.tailSet(after, false)) {
      if (out.size() >= maxItems || key.dueAtMillis() > dueUpToMillis) {
        break;
      }
      out.add(key);
    }
    return out;
  }

  /** Whether {@code key} is still in the index (a Tick may have withdrawn it already). */
  boolean holds(ExpiryKey key) {
    return keys.contains(key);
  }

  /** The earliest due time, or Long.MAX_VALUE. */
  long firstDueMillis() {
    return keys.isEmpty() ? Long.MAX_VALUE : keys.first().dueAtMillis();
  }

  int size() {
    return keys.size();
  }
}
