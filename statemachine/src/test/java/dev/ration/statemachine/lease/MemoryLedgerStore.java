package dev.ration.statemachine.lease;

import dev.ration.statemachine.replica.Changes;
import dev.ration.statemachine.replica.ExpiryKey;
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
 * index), for running ledgers without RocksDB in unit tests. {@link #commit} plays the
 * WriteBatch: the ledger sees an entry's writes only after it. Thread: the test's.
 */
public final class MemoryLedgerStore implements LedgerStore {
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
    expiry.addAll(changes.expiryPuts);
    expiry.removeAll(changes.expiryDeletes);
    expiry.removeAll(changes.expiryRemovals);
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
