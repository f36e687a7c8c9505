package dev.ration.statemachine.replica;

import dev.ration.statemachine.command.RequestKey;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The part of the ledger's state that lives only in durable storage, never in the heap:
 * idempotency records (in {@link IdempotencyGeneration}s) and the time-ordered expiry index of
 * every kind a ledger does not keep in memory (see
 * {@link Ledger#keepsExpiriesInMemory()}). At 10,000 mutations/s and a 60 s retention that is 600k
 * records, too many for a small heap.
 *
 * <p>Every method reads the <b>committed</b> state: what the entries written so far hold. The
 * entry being applied is not visible here; the ledger layers its own pending writes
 * ({@link Changes}) over these answers, and the store writes them, with the applied index, in
 * the entry's one WriteBatch. Reads must be deterministic: the same committed state gives the
 * same answers on every replica, in the same order.
 *
 * <p>Thread: the single applying thread.
 */
public interface LedgerStore {

  /**
   * The committed record of {@code key} in the generation starting at {@code generation}, if
   * one is stored there (expired or not: the caller compares with now).
   */
  Optional<IdempotencyRecord> idempotencyRecord(long generation, RequestKey key);

  /** The committed idempotency generations, in start order (read once, at open). */
  List<IdempotencyGeneration> idempotencyGenerations();

  /**
   * Up to {@code maxItems} committed expiry-index keys strictly after {@code after} with
   * {@code dueAtMillis ≤ dueUpToMillis}, of every kind, in (dueAt, kind, a, b, c) order.
   * {@code dueUpToMillis} is either Long.MAX_VALUE or at most the ledger's now: a store may use
   * a scan up to now to skip, next time, what lies before it (no key is ever added due before
   * now).
   */
  List<ExpiryKey> expiries(ExpiryKey after, long dueUpToMillis, int maxItems);

  /** Whether the committed expiry index holds {@code key} (for verify). */
  boolean hasExpiry(ExpiryKey key);

  /** Every committed idempotency record (for verify: expensive). */
  void forEachIdempotencyRecord(BiConsumer<RequestKey, IdempotencyRecord> action);

  /** Every committed expiry-index key, in order (for verify: expensive). */
  void forEachExpiry(Consumer<ExpiryKey> action);
}
