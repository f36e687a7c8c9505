package dev.ration.statemachine.lease;

import dev.ration.statemachine.command.RequestKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * A {@link LedgerStore} in plain collections, for running a {@link LeaseLedger} without RocksDB
 * in unit tests. {@link #commit} plays the WriteBatch: the ledger sees an entry's writes only
 * after it. Thread: the test's.
 */
final class MemoryLedgerStore implements LedgerStore {
  private final Map<RequestKey, IdempotencyRecord> records = new HashMap<>();
  private final TreeSet<ExpiryKey> expiry = new TreeSet<>();

  void commit(Changes changes) {
    records.putAll(changes.idempotencyPuts);
    changes.idempotencyDeletes.forEach(records::remove);
    expiry.addAll(changes.expiryPuts);
    expiry.removeAll(changes.expiryDeletes);
    expiry.removeAll(changes.expiryRemovals);
  }

  @Override
  public Optional<IdempotencyRecord> idempotencyRecord(RequestKey key) {
    return Optional.ofNullable(records.get(key));
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
    records.forEach(action);
  }

  @Override
  public void forEachExpiry(Consumer<ExpiryKey> action) {
    expiry.forEach(action);
  }
}
