package dev.ration.statemachine.quota;

import dev.ration.statemachine.replica.ApplyContext;
import dev.ration.statemachine.replica.Changes;
import dev.ration.statemachine.replica.ExpiryKey;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The quota ledger's two column families as the entry being applied sees them: committed
 * records with this entry's own pending writes and deletes layered on top. Every read, write,
 * delete and expiry-index record of the ledger passes through here, so the entry's one
 * WriteBatch is the only place they land.
 *
 * <p>Thread: the single applying thread.
 *
 * <p>Invariants: a read or a scan never misses this entry's own writes nor shows its deletes;
 * a bounded scan never skips a committed key that sorts before a key it returns.
 */
final class QuotaRecords {
  static final String Q = QuotaLedger.FAMILY_QUOTA;
  static final String LOG = QuotaLedger.FAMILY_USAGE;

  private final ApplyContext context;

  QuotaRecords(ApplyContext context) {
    this.context = context;
  }

  /** A record, this entry's pending write (or delete) first. */
  Optional<byte[]> get(String family, byte[] key) {
    return context.read(family, key);
  }

  /** A committed record, ignoring this entry's writes (for loading state at open). */
  Optional<byte[]> committed(String family, byte[] key) {
    return context.store().get(family, key);
  }

  void put(String family, byte[] key, byte[] value) {
    context.changes().putRecord(family, key, value);
  }

  void delete(String family, byte[] key) {
    context.changes().deleteRecord(family, key);
  }

  void putExpiry(ExpiryKey key) {
    context.putExpiry(key);
  }

  /** Committed entries in [from, to) with this entry's writes layered over them, at most max. */
  List<Map.Entry<byte[], byte[]>> scan(String family, byte[] from, byte[] to, int max) {
    TreeMap<byte[], byte[]> writes = context.changes().records.get(family);
    NavigableMap<byte[], byte[]> pending = writes == null
        ? new TreeMap<>(Arrays::compareUnsigned) : writes.subMap(from, true, to, false);
    long deletes = pending.values().stream().filter(v -> v == Changes.DELETED).count();
    int want = (int) Math.min(Integer.MAX_VALUE, (long) max + deletes);
    TreeMap<byte[], byte[]> merged = new TreeMap<>(Arrays::compareUnsigned);
    context.store().scan(family, from, (key, value) -> {
      if (merged.size() >= want || Arrays.compareUnsigned(key, to) >= 0) {
        return false;
      }
      merged.put(key, value);
      return true;
    });
    boolean committedTruncated = merged.size() >= want;
    byte[] lastCommitted = merged.isEmpty() ? new byte[0] : merged.lastKey();
    for (Map.Entry<byte[], byte[]> e : pending.entrySet()) {
      if (e.getValue() == Changes.DELETED) {
        merged.remove(e.getKey());
      } else {
        merged.put(e.getKey(), e.getValue());
      }
    }
    List<Map.Entry<byte[], byte[]>> out = new ArrayList<>(Math.min(max, merged.size()));
    for (Map.Entry<byte[], byte[]> e : merged.entrySet()) {
      if (out.size() >= max) {
        break;
      }
      if (committedTruncated && Arrays.compareUnsigned(e.getKey(), lastCommitted) > 0) {
        break; // committed keys between here and this pending key were not read
      }
      out.add(new AbstractMap.SimpleImmutableEntry<>(e.getKey(), e.getValue()));
    }
    return out;
  }

  /** Every record of one tag (a whole-range scan, at most max). */
  List<Map.Entry<byte[], byte[]>> scanTag(byte tag, int max) {
    return scan(Q, QuotaKeys.first(tag), QuotaKeys.end(tag), max);
  }

  /** Every record whose key starts with {@code prefix}, at most max. */
  List<Map.Entry<byte[], byte[]>> scanPrefix(byte[] prefix, int max) {
    return scan(Q, prefix, QuotaKeys.after(prefix), max);
  }
}
