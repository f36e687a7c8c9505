package dev.ration.client.ttl;

import dev.ration.wire.Outcome;
import dev.ration.client.protocol.TtlResponse;
import java.util.concurrent.CompletableFuture;

/**
 * A lock held through a TTL entry, from {@link TtlEntries#tryLock}. Its {@link #fencingToken()}
 * is the entry's version: every later holder of the same lock gets a strictly larger token, so
 * a protected resource can refuse a holder whose lock has lapsed (a long GC pause, a partition)
 * even if that holder still believes it owns the lock.
 *
 * <p>Example — the protected resource remembers the highest token it has accepted and rejects
 * anything older:
 *
 * <pre>{@code
 * Optional<Lock> lock = client.ttl().tryLock("invoice-batch", "worker-7", 10_000);
 * if (lock.isPresent()) {
 *   try {
 *     storage.write("batch.csv", bytes, lock.get().fencingToken());
 *   } finally {
 *     lock.get().release();
 *   }
 * }
 *
 * // in the storage service:
 * synchronized void write(String file, byte[] data, long fencingToken) {
 *   if (fencingToken < highestTokenSeen) {
 *     throw new StaleLockException(fencingToken + " < " + highestTokenSeen);
 *   }
 *   highestTokenSeen = fencingToken;
 *   ... write ...
 * }
 * }</pre>
 *
 * The lock itself is only advisory: it expires after its TTL whether or not the holder is
 * done, and Ration cannot stop a paused holder from acting later. The token is what makes the
 * resource safe.
 *
 * <p>Thread-safe; immutable.
 */
public final class Lock {
  private final TtlEntries entries;
  private final String name;
  private final String owner;
  private final long fencingToken;
  private final long expiresAtMillis;

  Lock(TtlEntries entries, String name, String owner, long fencingToken, long expiresAtMillis) {
    this.entries = entries;
    this.name = name;
    this.owner = owner;
    this.fencingToken = fencingToken;
    this.expiresAtMillis = expiresAtMillis;
  }

  public String name() {
    return name;
  }

  public String owner() {
    return owner;
  }

  /** The lock entry's version: strictly larger for every later holder of this lock. */
  public long fencingToken() {
    return fencingToken;
  }

  /** Ledger time at which the lock lapses unless refreshed (as granted). */
  public long expiresAtMillis() {
    return expiresAtMillis;
  }

  public CompletableFuture<Boolean> releaseAsync() {
    return entries.deleteAsync(TtlEntries.LOCK_NAMESPACE, name, fencingToken)
        .thenApply(r -> r.outcome() == Outcome.SUCCESS && r.existed());
  }

  /**
   * Releases the lock if this holder still holds it (delete with the fencing token as the
   * expected version). False if it had lapsed or someone else holds it now.
   */
  public boolean release() {
    return TtlEntries.join(releaseAsync());
  }

  public CompletableFuture<Boolean> refreshAsync(long ttlMillis) {
    return entries.refreshAsync(TtlEntries.LOCK_NAMESPACE, name, ttlMillis, fencingToken)
        .thenApply((TtlResponse.WriteReply r) -> r.outcome() == Outcome.SUCCESS);
  }

  /** Extends the lock (same token) if this holder still holds it; false if it lapsed. */
  public boolean refresh(long ttlMillis) {
    return TtlEntries.join(refreshAsync(ttlMillis));
  }

  @Override
  public String toString() {
    return "Lock[" + name + " owner=" + owner + " token=" + fencingToken + " expiresAt="
        + expiresAtMillis + "]";
  }
}
