package dev.ration.statemachine.lease;

import dev.ration.statemachine.replica.Changes;
import dev.ration.statemachine.replica.ExpiryKey;
import dev.ration.statemachine.replica.FamilyStore;
import dev.ration.statemachine.replica.IdempotencyGeneration;
import dev.ration.statemachine.replica.IdempotencyRecord;
import dev.ration.statemachine.replica.LedgerStore;

import dev.ration.statemachine.command.RequestKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * A {@link LedgerStore} in plain collections (the kernel's idempotency records and expiry
 * index), and a {@link FamilyStore} of the ledgers' column families in sorted maps (unsigned
 * key order, as RocksDB's), for running ledgers without RocksDB in unit tests. {@link #commit}
 * plays the WriteBatch: the ledger sees an entry's writes only after it. Thread: the test's.
 */
public final class MemoryLedgerStore implements LedgerStore, FamilyStore {
  private final Map<String, TreeMap<byte[], byte[]>> families = new HashMap<>();
  /** Generation start, then request key. */
  private final TreeMap<Long, Map<RequestKey, IdempotencyRecord>> records = new TreeMap<>();
  private final TreeMap<Long, IdempotencyGeneration> generations = new TreeMap<>();
  private final TreeSet<ExpiryKey> expiry = new TreeSet<>();

  public void commit(Changes changes) {
    for (long dropped : changes.generationDrops) {
      records.remove(dropped);
      generations.remove(dropped);
    }
    changes.idempotencyPuts.forEach((key, record) ->
        records.computeIfAbsent(record.generation(), g -> new HashMap<>()).put(key, record));
    changes.generationPuts.values().forEach(g -> generations.put(g.start(), g));
    changes.records.forEach((name, writes) -> writes.forEach((k, v) -> {
      if (v == Changes.DELETED) {
        family(name).remove(k);
      } else {
        family(name).put(k, v);
      }
    }));
    expiry.addAll(changes.expiryPuts);
    expiry.removeAll(changes.expiryDeletes);
    expiry.removeAll(changes.expiryRemovals);
  }

  private TreeMap<byte[], byte[]> family(String name) {
    return families.computeIfAbsent(name, f -> new TreeMap<>(java.util.Arrays::compareUnsigned));
  }

  @Override
  public Optional<byte[]> get(String family, byte[] key) {
    return Optional.ofNullable(family(family).get(key)).map(byte[]::clone);
  }

  @Override
  public void scan(String family, byte[] fromKey, Visitor visitor) {
    for (Map.Entry<byte[], byte[]> e : family(family).tailMap(fromKey, true).entrySet()) {
      if (!visitor.visit(e.getKey().clone(), e.getValue().clone())) {
        return;
      }
    }
  }

  @Override
  public Optional<IdempotencyRecord> idempotencyRecord(long generation, RequestKey key) {
    return Optional.ofNullable(records.getOrDefault(generation, Map.of()).get(key));
  }

  @Override
  public List<IdempotencyGeneration> idempotencyGenerations() {
    return new ArrayList<>(generations.values());
  }

  @Override
  public List<ExpiryKey> expiries(ExpiryKey after, long dueUpToMillis, int maxItems) {
    List<ExpiryKey> out = new ArrayList<>();
    for (ExpiryKey key : expiry.tailSet(after, false)) {
      if (out.size() >= maxItems || key.dueAtMillis() > dueUpToMillis) {
        break;
      }
      out.add(key);
    }
    return out;
  }

  @Override
  public boolean hasExpiry(ExpiryKey key) {
    return expiry.contains(key);
  }

  @Override
  public void forEachIdempotencyRecord(BiConsumer<RequestKey, IdempotencyRecord> action) {
    records.values().forEach(generation -> generation.forEach(action));
  }

  @Override
  public void forEachExpiry(Consumer<ExpiryKey> action) {
    expiry.forEach(action);
  }
}
