package dev.ration.statemachine.lease;

import dev.ration.statemachine.command.RequestKey;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * What one applied entry changed. Limits and leases are held in memory, so for them only the
 * touched keys are listed and the store writes the ledger's current value (or a delete). The
 * idempotency records and the expiry index live only in the store ({@link LedgerStore}), so
 * their writes are carried here in full; while the entry is applied they are also the overlay
 * the ledger reads before the store (a second proposal with the same key in one batch must see
 * the first one's record).
 *
 * <p>Invariants, kept by the ledger's put/delete methods: a key is never in both the puts and
 * the deletes of one family (the later operation wins, as it would in the WriteBatch).
 *
 * <p>Thread: confined to the applying thread.
 */
public final class Changes {
  public final Set<LimitKey> limits = new HashSet<>();
  public final Set<Long> leases = new HashSet<>();
  /** Expiry-index keys to write (every kind). */
  public final Set<ExpiryKey> expiryPuts = new HashSet<>();
  /** Expiry-index keys Tick popped (every kind). */
  public final Set<ExpiryKey> expiryDeletes = new HashSet<>();
  /** Idempotency records to write, by key. */
  public final Map<RequestKey, IdempotencyRecord> idempotencyPuts = new HashMap<>();
  /** Idempotency records Tick dropped. */
  public final Set<RequestKey> idempotencyDeletes = new HashSet<>();

  public boolean isEmpty() {
    return limits.isEmpty() && leases.isEmpty() && expiryPuts.isEmpty() && expiryDeletes.isEmpty()
        && idempotencyPuts.isEmpty() && idempotencyDeletes.isEmpty();
  }

  void putExpiry(ExpiryKey key) {
    expiryDeletes.remove(key);
    expiryPuts.add(key);
  }

  void deleteExpiry(ExpiryKey key) {
    expiryPuts.remove(key);
    expiryDeletes.add(key);
  }

  void putIdempotency(RequestKey key, IdempotencyRecord record) {
    idempotencyDeletes.remove(key);
    idempotencyPuts.put(key, record);
  }

  void deleteIdempotency(RequestKey key) {
    idempotencyPuts.remove(key);
    idempotencyDeletes.add(key);
  }
}
