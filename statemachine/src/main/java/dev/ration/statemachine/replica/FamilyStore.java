package dev.ration.statemachine.replica;

import java.util.Optional;

/**
 * Committed reads of the column families a ledger keeps only in storage, never on the heap
 * (TTL entries, for one). Writes go through {@link dev.ration.statemachine.replica.Changes}
 * ({@code putRecord}/{@code deleteRecord}) and reach RocksDB in the entry's one WriteBatch.
 *
 * <p>Every answer is the committed state (the entries written so far) and deterministic: the
 * same committed state gives the same answers, in the same order, on every replica. Keys are
 * compared as unsigned bytes (RocksDB's default comparator).
 *
 * <p>Thread: the single applying thread, or a reader the caller serialises with it.
 */
public interface FamilyStore {

  /** The committed value of {@code key} in {@code family}. */
  Optional<byte[]> get(String family, byte[] key);

  /**
   * Visits committed records of {@code family} in key order starting at {@code fromKey}
   * (inclusive) until the visitor returns false or the family ends.
   */
  void scan(String family, byte[] fromKey, Visitor visitor);

  /** One record of a scan; the arrays are the visitor's own. Return false to stop. */
  @FunctionalInterface
  interface Visitor {
    boolean visit(byte[] key, byte[] value);
  }

  /** A store with nothing in it (for ledgers run without RocksDB in unit tests). */
  FamilyStore EMPTY = new FamilyStore() {
    @Override
    public Optional<byte[]> get(String family, byte[] key) {
      return Optional.empty();
    }

    @Override
    public void scan(String family, byte[] fromKey, Visitor visitor) {}
  };
}
