package dev.ration.client.ttl;

import dev.ration.client.time.LedgerTime;
import java.time.Duration;
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
 * Optional<Lock> lock = client.ttl().tryLock("invoice-batch", "worker-7", Duration.ofSeconds(10));
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
  private final String namespace;
  private final String name;
  private final String owner;
  private final long fencingToken;
  private final LedgerTime expiresAt;

  Lock(TtlEntries entries, String namespace, String name, String owner, long fencingToken,
      LedgerTime expiresAt) {
    this.entries = entries;
    this.namespace = namespace;
    this.name = name;
    this.owner = owner;
    this.fencingToken = fencingToken;
    this.expiresAt = expiresAt;
  }

  /**
   * The namespace the lock's entry lives in ({@link TtlEntries#LOCK_NAMESPACE} unless given).
   *
   * @return the namespace
   */
  public String namespace() {
    return namespace;
  }

  /**
   * The lock's name (its key in {@link #namespace()}).
   *
   * @return the name
   */
  public String name() {
    return name;
  }

  /**
   * Who took the lock.
   *
   * @return the owner given to {@link TtlEntries#tryLock}
   */
  public String owner() {
    return owner;
  }

  /**
   * The lock entry's version: strictly larger for every later holder of this lock.
   *
   * @return the fencing token to present to the protected resource
   */
  public long fencingToken() {
    return fencingToken;
  }

  /**
   * When the lock lapses unless refreshed, as granted (a {@link #refresh} does not change this
   * object).
   *
   * @return the expiry in ledger time
   */
  public LedgerTime expiresAt() {
    return expiresAt;
  }

  /**
   * As {@link #release}, without waiting.
   *
   * @return whether this holder still held the lock and released it
   */
  public CompletableFuture<Boolean> releaseAsync() {
    return entries.deleteAsync(namespace, name, fencingToken)
        .thenApply(r -> {
          if (!r.deleted()) {
            entries.lockLost(name, fencingToken);
          }
          return r.deleted();
        });
  }

  /**
   * Releases the lock if this holder still holds it (delete with the fencing token as the
   * expected version). False if it had lapsed or someone else holds it now.
   *
   * @return whether this holder still held the lock and released it
   */
  public boolean release() {
    return TtlEntries.join(releaseAsync());
  }

  /**
   * As {@link #refresh}, without waiting.
   *
   * @param ttl the new TTL from now
   * @return whether this holder still held the lock and extended it
   */
  public CompletableFuture<Boolean> refreshAsync(Duration ttl) {
    return entries.refreshAsync(namespace, name, ttl, fencingToken)
        .thenApply(r -> {
          if (!r.succeeded()) {
            entries.lockLost(name, fencingToken);
          }
          return r.succeeded();
        });
  }

  /**
   * Extends the lock (same token) if this holder still holds it; false if it lapsed.
   *
   * @param ttl the new TTL from now
   * @return whether this holder still held the lock and extended it
   */
  public boolean refresh(Duration ttl) {
    return TtlEntries.join(refreshAsync(ttl));
  }

  @Override
  public String toString() {
    return "Lock[" + name + " owner=" + owner + " token=" + fencingToken + " expiresAt="
        + expiresAt + "]";
  }
}
