package dev.ration.client.ttl;

import dev.ration.wire.ttl.NamespaceView;

import dev.ration.wire.CapacityPolicy;

import dev.ration.wire.Outcome;
import dev.ration.client.protocol.Request;
import dev.ration.client.protocol.Response;
import dev.ration.client.protocol.TtlRequest;
import dev.ration.client.protocol.TtlResponse;
import dev.ration.client.transport.Transport;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * TTL entries of a Ration cluster: a replicated key/value store whose entries expire
 * (docs/TTL.md). Obtained from {@code RationClient.ttl()}; every call goes through the
 * client's retry loop (mutations keep their request id across retries, so a resent put is
 * answered with its first result).
 *
 * <p>Expiry: {@code ttlMillis} is milliseconds of ledger time; 0 = already expired,
 * {@link #NO_EXPIRY} = never. An entry is expired once ledger time reaches its
 * {@code expiresAtMillis}; reads are linearizable and never return an expired entry. After a
 * leader change an entry may live a little longer than its TTL, never shorter.
 *
 * <p>A plain {@link #put} always replaces the value AND resets the TTL; {@link #refresh}
 * changes only the expiry. Every put and compare-and-set gives the entry a new version, larger
 * than any version before it; refresh keeps it.
 *
 * <p>Thread-safe (the client is). Sync methods throw {@code RationException}; async ones
 * complete exceptionally with it.
 */
public final class TtlEntries {
  /** ttlMillis meaning "never expires". */
  public static final long NO_EXPIRY = -1;
  /** The namespace {@link #tryLock} keeps its locks in. */
  public static final String LOCK_NAMESPACE = "locks";

  private final Transport client;

  public TtlEntries(Transport client) {
    this.client = client;
  }

  // ---------------------------------------------------------------- entries

  public CompletableFuture<TtlResponse.WriteReply> putAsync(String namespace, String key,
      byte[] value, long ttlMillis) {
    return call(new TtlRequest.Put(namespace, key, value, ttlMillis), TtlResponse.WriteReply.class);
  }

  /** Stores {@code value}, replacing any entry, with a new version and TTL (the TTL resets). */
  public TtlResponse.WriteReply put(String namespace, String key, byte[] value, long ttlMillis) {
    return join(putAsync(namespace, key, value, ttlMillis));
  }

  public CompletableFuture<TtlResponse.WriteReply> compareAndSetAsync(String namespace,
      String key, long expectedVersion, byte[] value, long ttlMillis) {
    return call(new TtlRequest.CompareAndSet(namespace, key, expectedVersion, value, ttlMillis),
        TtlResponse.WriteReply.class);
  }

  /**
   * Puts only if the live entry's version is {@code expectedVersion} (0 = absent or expired);
   * otherwise the reply's outcome is VERSION_MISMATCH with {@code currentVersion}.
   */
  public TtlResponse.WriteReply compareAndSet(String namespace, String key, long expectedVersion,
      byte[] value, long ttlMillis) {
    return join(compareAndSetAsync(namespace, key, expectedVersion, value, ttlMillis));
  }

  public CompletableFuture<TtlResponse.WriteReply> refreshAsync(String namespace, String key,
      long ttlMillis, long expectedVersion) {
    return call(new TtlRequest.Refresh(namespace, key, ttlMillis, expectedVersion),
        TtlResponse.WriteReply.class);
  }

  /**
   * Sets a live entry's expiry to now + {@code ttlMillis}; value and version stay.
   * {@code expectedVersion} 0 = any. Absent or expired: outcome ENTRY_UNKNOWN.
   */
  public TtlResponse.WriteReply refresh(String namespace, String key, long ttlMillis,
      long expectedVersion) {
    return join(refreshAsync(namespace, key, ttlMillis, expectedVersion));
  }

  public CompletableFuture<TtlResponse.DeleteReply> deleteAsync(String namespace, String key,
      long expectedVersion) {
    return call(new TtlRequest.Delete(namespace, key, expectedVersion), TtlResponse.DeleteReply.class);
  }

  /** Deletes the entry ({@code expectedVersion} 0 = whatever version). */
  public TtlResponse.DeleteReply delete(String namespace, String key, long expectedVersion) {
    return join(deleteAsync(namespace, key, expectedVersion));
  }

  public CompletableFuture<Optional<TtlResponse.EntryInfo>> getAsync(String namespace, String key) {
    return call(new TtlRequest.Get(namespace, key, false), TtlResponse.GetReply.class)
        .thenApply(r -> r.found() ? Optional.of(r.entry()) : Optional.empty());
  }

  /** The live entry (linearizable; an expired entry is a miss). */
  public Optional<TtlResponse.EntryInfo> get(String namespace, String key) {
    return join(getAsync(namespace, key));
  }

  public CompletableFuture<TtlResponse.ListReply> listAsync(String namespace, String prefix,
      int limit) {
    return call(new TtlRequest.List(namespace, prefix, limit, false), TtlResponse.ListReply.class);
  }

  /** Live entries whose key starts with {@code prefix}, in key order (at most 1000). */
  public TtlResponse.ListReply list(String namespace, String prefix, int limit) {
    return join(listAsync(namespace, prefix, limit));
  }

  public CompletableFuture<TtlResponse.NamespaceReply> setNamespaceAsync(String namespace,
      long maxEntries, long maxBytes, CapacityPolicy policy) {
    return call(new TtlRequest.SetNamespace(namespace, maxEntries, maxBytes, policy),
        TtlResponse.NamespaceReply.class);
  }

  /** Capacity of a namespace, and whether a full one refuses writes or evicts. */
  public TtlResponse.NamespaceReply setNamespace(String namespace, long maxEntries, long maxBytes,
      CapacityPolicy policy) {
    return join(setNamespaceAsync(namespace, maxEntries, maxBytes, policy));
  }

  public CompletableFuture<List<NamespaceView>> namespacesAsync(String namespace) {
    return call(new TtlRequest.GetNamespaces(namespace, false), TtlResponse.NamespaceList.class)
        .thenApply(TtlResponse.NamespaceList::namespaces);
  }

  /** One namespace ({@code namespace} non-empty) or all of them (""). */
  public List<NamespaceView> namespaces(String namespace) {
    return join(namespacesAsync(namespace));
  }

  // ---------------------------------------------------------------- locks

  public CompletableFuture<Optional<Lock>> tryLockAsync(String name, String owner, long ttlMillis) {
    return compareAndSetAsync(LOCK_NAMESPACE, name, 0, owner.getBytes(StandardCharsets.UTF_8),
        ttlMillis).thenApply(r -> {
          if (r.outcome() == Outcome.SUCCESS) {
            return Optional.of(new Lock(this, name, owner, r.version(), r.expiresAtMillis()));
          }
          if (r.outcome() == Outcome.VERSION_MISMATCH) {
            return Optional.<Lock>empty();
          }
          throw new IllegalStateException("tryLock " + name + " for " + owner + ": "
              + r.outcome() + " " + r.message());
        });
  }

  /**
   * Takes the lock {@code name} for {@code owner} if nobody holds it (an entry in
   * {@link #LOCK_NAMESPACE} created by compare-and-set with expected version 0). Empty when it
   * is held. The lock lapses by itself {@code ttlMillis} of ledger time after it was taken (or
   * last refreshed) unless released. See {@link Lock} for the fencing token.
   */
  public Optional<Lock> tryLock(String name, String owner, long ttlMillis) {
    return join(tryLockAsync(name, owner, ttlMillis));
  }

  // ---------------------------------------------------------------- helpers

  private <T extends TtlResponse> CompletableFuture<T> call(TtlRequest request, Class<T> type) {
    return client.call(new Request.Ttl(request)).thenApply(r -> {
      if (r instanceof Response.Ttl t && type.isInstance(t.response())) {
        return type.cast(t.response());
      }
      throw new IllegalStateException("expected " + type.getSimpleName() + " but got " + r);
    });
  }

  static <T> T join(CompletableFuture<T> f) {
    try {
      return f.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw e;
    }
  }
}
