package dev.ration.statemachine.replica;

import dev.ration.statemachine.command.RequestKey;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * What one applied entry changed, carried in full to the store's one WriteBatch: the ledgers'
 * records by family (a ledger that keeps its state in memory writes what the entry changed at
 * the end of the entry), the idempotency records and generations, and the shared expiry index.
 * While the entry is applied they are also the overlay reads see before the store (a second
 * proposal with the same key in one batch must see the first one's record).
 *
 * <p>Invariants, kept by the ledger's put/delete methods: a key is never in both the puts and
 * the deletes of one family (the later operation wins, as it would in the WriteBatch).
 *
 * <p>Thread: confined to the applying thread.
 */
public final class Changes {
  /** Expiry-index keys to write (every kind). */
  public final Set<ExpiryKey> expiryPuts = new HashSet<>();
  /** Expiry-index keys Tick popped (every kind): all due at or before now, popped in order. */
  public final Set<ExpiryKey> expiryDeletes = new HashSet<>();
  /**
   * Expiry-index keys withdrawn before they were due (a renewed lease's old end): deleted from
   * the store like {@link #expiryDeletes}, but out of order, so they never move the store's
   * tombstone floor.
   */
  public final Set<ExpiryKey> expiryRemovals = new HashSet<>();
  /** Idempotency records to write, by key. */
  public final Map<RequestKey, IdempotencyRecord> idempotencyPuts = new HashMap<>();
  /** Idempotency generations created or grown by this entry, by start (their new count). */
  public final Map<Long, IdempotencyGeneration> generationPuts = new HashMap<>();
  /** Idempotency generations dropped whole by this entry (every record in them expired). */
  public final Set<Long> generationDrops = new HashSet<>();
  /**
   * Raw writes to the ledgers' column families, by family name, then key in unsigned byte
   * order; a value {@link #DELETED} (compared by identity) is a delete. See {@link Ledger}.
   */
  public final Map<String, TreeMap<byte[], byte[]>> records = new TreeMap<>();

  /** The marker value of a deleted record in {@link #records}; never written as a value. */
  public static final byte[] DELETED = new byte[0];

  public boolean isEmpty() {
    return expiryPuts.isEmpty() && expiryDeletes.isEmpty()
        && expiryRemovals.isEmpty()
        && idempotencyPuts.isEmpty() && generationPuts.isEmpty() && generationDrops.isEmpty()
        && records.isEmpty();
  }

  /** Writes {@code value} under {@code key} in {@code family} (the later write wins). */
  public void putRecord(String family, byte[] key, byte[] value) {
    if (value == DELETED) {
      throw new IllegalArgumentException("the DELETED marker is not a value, family " + family);
    }
    family(family).put(key.clone(), value.clone());
  }

  /** Deletes {@code key} in {@code family} (the later write wins). */
  public void deleteRecord(String family, byte[] key) {
    family(family).put(key.clone(), DELETED);
  }

  /**
   * This entry's write of {@code key}: empty if the entry did not touch it; else the value, or
   * an empty inner Optional for a delete.
   */
  public Optional<Optional<byte[]>> pendingRecord(String family, byte[] key) {
    TreeMap<byte[], byte[]> writes = records.get(family);
    if (writes == null || !writes.containsKey(key)) {
      return Optional.empty();
    }
    byte[] value = writes.get(key);
    return Optional.of(value == DELETED ? Optional.empty() : Optional.of(value.clone()));
  }

  private TreeMap<byte[], byte[]> family(String family) {
    return records.computeIfAbsent(family, f -> new TreeMap<>(Arrays::compareUnsigned));
  }

  public void putExpiry(ExpiryKey key) {
    expiryDeletes.remove(key);
    expiryRemovals.remove(key);
    expiryPuts.add(key);
  }

  /** Withdraws a key that is not due yet (or not stored at all: deleting it is harmless). */
  public void removeExpiry(ExpiryKey key) {
    expiryPuts.remove(key);
    expiryRemovals.add(key);
  }

  public void deleteExpiry(ExpiryKey key) {
    expiryPuts.remove(key);
    expiryRemovals.remove(key);
    expiryDeletes.add(key);
  }

  /** A record and the new count of its generation. */
  public void putIdempotency(RequestKey key, IdempotencyRecord record,
      IdempotencyGeneration generation) {
    idempotencyPuts.put(key, record);
    generationPuts.put(generation.start(), generation);
  }

  /** Drops a whole generation; never one this entry wrote to (it only drops expired ones). */
  public void dropGeneration(long start) {
    if (generationPuts.containsKey(start)) {
      throw new IllegalStateException("generation " + start + " written and dropped in one entry");
    }
    generationDrops.add(start);
  }
}
