package dev.ration.statemachine.store;

import dev.ration.statemachine.StoreException;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.replica.Changes;
import dev.ration.statemachine.replica.ExpiryKey;
import dev.ration.statemachine.replica.IdempotencyGeneration;
import dev.ration.statemachine.replica.IdempotencyRecord;
import dev.ration.statemachine.replica.LedgerStore;
import dev.ration.statemachine.replica.FamilyStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * {@link LedgerStore} over the {@code idempotency} and {@code expiry} column families (and the
 * idempotency generations' records in {@code meta}): the
 * ledger's store-only state is read straight from RocksDB (committed state: the entries written
 * so far), never cached on the heap.
 *
 * <p><b>Tombstones.</b> The expiry index is a queue: Tick deletes from its front, and every key
 * added later is due at or after the ledger's now. Iterating from the very first key would walk
 * every tombstone left by earlier Ticks until compaction drops them, so iteration starts at
 * {@link #floorDueMillis}: the largest due time of any key a committed Tick deleted. No live key
 * is due before it — a Tick pops in order, so every key due earlier was popped, and a key added
 * since is due at or after now ≥ floor. The floor is local to this node (it starts at
 * Long.MIN_VALUE after a restart) and changes only how far iteration skips, never what it finds,
 * so replicas still agree.
 *
 * <p>Thread: the single applying thread (as {@link RocksCoordinatorState}). The handles belong
 * to the state, which closes them.
 */
final class RocksLedgerStore implements LedgerStore, FamilyStore {
  private final Path dataDir;
  private final RocksDB db;
  private final ColumnFamilyHandle idempotencyCf;
  private final ColumnFamilyHandle expiryCf;
  private final ColumnFamilyHandle metaCf;
  /** The store-only families of pluggable ledgers (TTL, quotas), by name. */
  private final Map<String, ColumnFamilyHandle> families;
  private long floorDueMillis = Long.MIN_VALUE;

  RocksLedgerStore(Path dataDir, RocksDB db, ColumnFamilyHandle idempotencyCf,
      ColumnFamilyHandle expiryCf, ColumnFamilyHandle metaCf,
      Map<String, ColumnFamilyHandle> families) {
    this.dataDir = dataDir;
    this.db = db;
    this.idempotencyCf = idempotencyCf;
    this.expiryCf = expiryCf;
    this.metaCf = metaCf;
    this.families = Map.copyOf(families);
  }

  ColumnFamilyHandle family(String family) {
    ColumnFamilyHandle handle = families.get(family);
    if (handle == null) {
      throw new IllegalArgumentException("unknown column family " + family + " (known: "
          + families.keySet() + ") dir=" + dataDir);
    }
    return handle;
  }

  @Override
  public Optional<byte[]> get(String family, byte[] key) {
    try {
      return Optional.ofNullable(db.get(family(family), key));
    } catch (RocksDBException e) {
      throw new StoreException("read " + family + " record dir=" + dataDir, e);
    }
  }

  @Override
  public void scan(String family, byte[] fromKey, Visitor visitor) {
    try (RocksIterator it = db.newIterator(family(family))) {
      for (it.seek(fromKey); it.isValid(); it.next()) {
        if (!visitor.visit(it.key(), it.value())) {
          break;
        }
      }
      check(it, () -> "iterate " + family);
    }
  }

  /** After an entry's WriteBatch is written: what its Ticks deleted raises the floor. */
  void committed(Changes changes) {
    for (ExpiryKey key : changes.expiryDeletes) {
      floorDueMillis = Math.max(floorDueMillis, key.dueAtMillis());
    }
  }

  @Override
  public Optional<IdempotencyRecord> idempotencyRecord(long generation, RequestKey key) {
    byte[] value;
    try {
      // A miss, the common case, is answered by the memtable and SST bloom filters.
      value = db.get(idempotencyCf, StoreFormat.idempotencyKey(generation, key));
    } catch (RocksDBException e) {
      throw new StoreException("read idempotency record " + key + " generation " + generation
          + " dir=" + dataDir, e);
    }
    return value == null
        ? Optional.empty() : Optional.of(StoreFormat.readIdempotency(generation, value));
  }

  @Override
  public List<IdempotencyGeneration> idempotencyGenerations() {
    List<IdempotencyGeneration> out = new ArrayList<>();
    try (RocksIterator it = db.newIterator(metaCf)) {
      for (it.seek(StoreFormat.GENERATION_KEY_PREFIX); it.isValid(); it.next()) {
        byte[] key = it.key();
        if (!StoreFormat.isGenerationKey(key)) {
          break;
        }
        out.add(StoreFormat.readGeneration(key, it.value()));
      }
      check(it, () -> "iterate idempotency generations");
    }
    return out;
  }

  @Override
  public List<ExpiryKey> expiries(ExpiryKey after, long dueUpToMillis, int maxItems) {
    List<ExpiryKey> out = new ArrayList<>(Math.min(maxItems, 64));
    if (maxItems <= 0) {
      return out;
    }
    ExpiryKey floor = new ExpiryKey(floorDueMillis, 0, Long.MIN_VALUE, Long.MIN_VALUE, Long.MIN_VALUE);
    boolean fromFloor = after.compareTo(floor) <= 0;
    long firstDue = Long.MAX_VALUE;
    byte[] afterBytes = StoreFormat.expiryKey(after);
    try (RocksIterator it = db.newIterator(expiryCf)) {
      it.seek(StoreFormat.expiryKey(fromFloor ? floor : after));
      for (; it.isValid() && out.size() < maxItems; it.next()) {
        byte[] keyBytes = it.key();
        if (Arrays.equals(keyBytes, afterBytes)) {
          continue;
        }
        ExpiryKey key = StoreFormat.readExpiryKey(keyBytes);
        firstDue = Math.min(firstDue, key.dueAtMillis());
        if (key.dueAtMillis() > dueUpToMillis) {
          break;
        }
        out.add(key);
      }
      check(it, () -> "iterate expiry index after " + after);
    }
    if (fromFloor && dueUpToMillis != Long.MAX_VALUE) {
      // A scan from the floor up to the ledger's now saw every committed key before the first
      // one it met: none is due before min(that key, now), and every key added later is due at
      // or after now. So the floor may rise there, and the next scan skips the tombstones in
      // between (renewals withdraw their old lease ends, which leaves them all over the index).
      floorDueMillis = Math.max(floorDueMillis, Math.min(firstDue, dueUpToMillis));
    }
    return out;
  }

  @Override
  public boolean hasExpiry(ExpiryKey key) {
    try {
      return db.get(expiryCf, StoreFormat.expiryKey(key)) != null;
    } catch (RocksDBException e) {
      throw new StoreException("read expiry record " + key + " dir=" + dataDir, e);
    }
  }

  @Override
  public void forEachIdempotencyRecord(BiConsumer<RequestKey, IdempotencyRecord> action) {
    try (RocksIterator it = db.newIterator(idempotencyCf)) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        byte[] key = it.key();
        action.accept(StoreFormat.readIdempotencyKey(key),
            StoreFormat.readIdempotency(StoreFormat.readIdempotencyGeneration(key), it.value()));
      }
      check(it, () -> "iterate idempotency records");
    }
  }

  @Override
  public void forEachExpiry(Consumer<ExpiryKey> action) {
    try (RocksIterator it = db.newIterator(expiryCf)) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        StoreFormat.checkExpiryValue(it.value());
        action.accept(StoreFormat.readExpiryKey(it.key()));
      }
      check(it, () -> "iterate expiry index");
    }
  }

  /**
   * An iterator that stops on an I/O or corruption error reports it only through status(). The
   * message is built only on failure: Tick scans the index in every entry.
   */
  private void check(RocksIterator it, Supplier<String> what) {
    try {
      it.status();
    } catch (RocksDBException e) {
      throw new StoreException(what.get() + " dir=" + dataDir, e);
    }
  }
}
