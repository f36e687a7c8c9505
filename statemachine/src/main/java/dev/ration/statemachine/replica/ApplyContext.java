package dev.ration.statemachine.replica;

import java.util.Optional;

/**
 * What a {@link Ledger} sees of the {@link Replica} while an entry is applied: the ledger clock,
 * the global version counter, the entry's {@link Changes} (its one WriteBatch) and committed
 * reads of the store-only column families with this entry's own writes layered on top.
 *
 * <p>Thread: the single applying thread.
 */
public interface ApplyContext {

  /** Ledger time of the entry being applied: max of all applied batch times (never decreases). */
  long nowMillis();

  /**
   * Mints the next version from the one global counter shared by every ledger, so any version
   * (a lease's, a limit's, a TTL entry's) is unique and larger than every version minted before:
   * a fencing token.
   */
  long mintVersion();

  /** The next version {@link #mintVersion()} would return (every minted version is below it). */
  long nextVersion();

  /** The entry's writes: the store persists them with the applied index in one WriteBatch. */
  Changes changes();

  /**
   * Adds a record to the shared expiry index. Its due time must be at or after now (I6): the
   * index is a queue that Tick pops from the front.
   */
  void putExpiry(ExpiryKey key);

  /**
   * Withdraws a record from the shared expiry index before it is due (its owner changed its due
   * time or went away), so no Tick has to pop a stale record later.
   */
  void removeExpiry(ExpiryKey key);

  /**
   * A record of a store-only family: this entry's pending write (or delete) first, then the
   * committed state.
   */
  Optional<byte[]> read(String family, byte[] key);

  /** Whether the committed shared expiry index holds {@code key} (for verify, between entries). */
  boolean hasExpiry(ExpiryKey key);

  /** The term of the last applied entry. */
  long appliedTerm();

  /** The index of the last applied entry ({@code Replica.NOTHING_APPLIED} before the first). */
  long appliedIndex();

  /** Stored idempotency records (expired ones too, until their generation is dropped). */
  long idempotencyRecords();

  /** Committed reads of the store-only families (between entries: the whole state). */
  FamilyStore store();
}
