package dev.ration.client.ttl;

import dev.ration.wire.Outcome;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.protocol.TtlRequest;
import dev.ration.protocol.TtlResponse;
import dev.ration.client.internal.WrappedCalls;
import dev.ration.client.time.LedgerTime;
import dev.ration.client.time.MonotonicClock;
import dev.ration.client.transport.Transport;
import dev.ration.client.ttl.internal.TtlAccess;
import dev.ration.client.ttl.internal.TtlViews;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * TTL entries of a Ration cluster: a replicated key/value store whose entries expire
 * (docs/TTL.md). Obtained from {@code RationClient.ttl()}; every call goes through the
 * client's retry loop (mutations keep their request id across retries, so a resent put is
 * answered with its first result).
 *
 * <p>Expiry: a TTL is a {@link Duration} of ledger time, at millisecond precision (a part of a
 * millisecond is dropped); {@link Duration#ZERO} = already expired, {@link #NO_EXPIRY} = never.
 * An entry is expired once ledger time reaches its {@code expiresAt}; reads are linearizable
 * and never return an expired entry. After a leader change an entry may live a little longer
 * than its TTL, never shorter.
 *
 * <p>A plain {@link #put} always replaces the value AND resets the TTL; {@link #refresh}
 * changes only the expiry. Every put and compare-and-set gives the entry a new version, larger
 * than any version before it; refresh keeps it.
 *
 * <p>Thread-safe (the client is). Sync methods throw {@code RationException}; async ones
 * complete exceptionally with it.
 */
public final class TtlEntries {
  /** The TTL meaning "never expires" (the longest {@link Duration}). */
  public static final Duration NO_EXPIRY = ChronoUnit.FOREVER.getDuration();
  /** The namespace {@link #tryLock} keeps its locks in. */
  public static final String LOCK_NAMESPACE = "locks";

  static {
    TtlAccess.install(TtlEntries::new);
  }

  private final List<TtlListener> listeners = new CopyOnWriteArrayList<>();
  private final WrappedCalls<TtlRequest, TtlResponse, TtlOperation, TtlListener> calls;
  private final MonotonicClock clock;

  private TtlEntries(Transport client, MonotonicClock clock) {
    this.clock = clock;
    this.calls = new WrappedCalls<>(client, clock, Request.Ttl::new,
        r -> r instanceof Response.Ttl t ? t.response() : null, listeners, TtlListener::onCall);
  }

  /**
   * Tells {@code listener} about every later call and lock of these entries.
   *
   * @param listener the listener
   */
  public void addListener(TtlListener listener) {
    listeners.add(java.util.Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Stops telling {@code listener}.
   *
   * @param listener a listener added before
   * @return whether it was registered
   */
  public boolean removeListener(TtlListener listener) {
    return listeners.remove(listener);
  }

  // ---------------------------------------------------------------- entries

  /**
   * As {@link #put}, without waiting.
   *
   * @param namespace the namespace
   * @param key the key
   * @param value the bytes to store
   * @param ttl how long the entry lives, or {@link #NO_EXPIRY}
   * @return the write's answer
   */
  public CompletableFuture<WriteResult> putAsync(String namespace, String key, byte[] value,
      Duration ttl) {
    return call(TtlOperation.PUT, new TtlRequest.Put(namespace, key, value, ttlMillis(ttl)), TtlResponse.WriteReply.class)
        .thenApply(TtlEntries::write);
  }

  /**
   * Stores {@code value}, replacing any entry, with a new version and TTL (the TTL resets).
   *
   * @param namespace the namespace
   * @param key the key
   * @param value the bytes to store
   * @param ttl how long the entry lives, or {@link #NO_EXPIRY}
   * @return the new version and expiry, or why the put was refused
   * @throws IllegalArgumentException if {@code ttl} is negative
   */
  public WriteResult put(String namespace, String key, byte[] value, Duration ttl) {
    return join(putAsync(namespace, key, value, ttl));
  }

  /**
   * As {@link #compareAndSet}, without waiting.
   *
   * @param namespace the namespace
   * @param key the key
   * @param expectedVersion the live version the put requires, 0 = absent or expired
   * @param value the bytes to store
   * @param ttl how long the entry lives, or {@link #NO_EXPIRY}
   * @return the write's answer
   */
  public CompletableFuture<WriteResult> compareAndSetAsync(String namespace, String key,
      long expectedVersion, byte[] value, Duration ttl) {
    return call(TtlOperation.COMPARE_AND_SET, new TtlRequest.CompareAndSet(namespace, key, expectedVersion, value, ttlMillis(ttl)),
        TtlResponse.WriteReply.class).thenApply(TtlEntries::write);
  }

  /**
   * Puts only if the live entry's version is {@code expectedVersion} (0 = absent or expired);
   * otherwise the outcome is VERSION_MISMATCH with {@code currentVersion}.
   *
   * @param namespace the namespace
   * @param key the key
   * @param expectedVersion the live version the put requires, 0 = absent or expired
   * @param value the bytes to store
   * @param ttl how long the entry lives, or {@link #NO_EXPIRY}
   * @return the new version and expiry, or why the put was refused
   */
  public WriteResult compareAndSet(String namespace, String key, long expectedVersion,
      byte[] value, Duration ttl) {
    return join(compareAndSetAsync(namespace, key, expectedVersion, value, ttl));
  }

  /**
   * As {@link #update}, without waiting.
   *
   * @param namespace the namespace
   * @param key the key
   * @param value the bytes to store
   * @param expectedVersion the live version required, 0 = any
   * @return the write's answer
   */
  public CompletableFuture<WriteResult> updateAsync(String namespace, String key, byte[] value,
      long expectedVersion) {
    return call(TtlOperation.UPDATE, new TtlRequest.Update(namespace, key, value, expectedVersion),
        TtlResponse.WriteReply.class).thenApply(TtlEntries::write);
  }

  /**
   * Replaces a live entry's value and keeps its expiry (Redis's {@code SET ... KEEPTTL}): the
   * entry gets a new version, its expiresAt stays. {@code expectedVersion} 0 = any. Absent or
   * expired: outcome ENTRY_UNKNOWN (there is no expiry to keep; use {@link #put}).
   *
   * @param namespace the namespace
   * @param key the key
   * @param value the bytes to store
   * @param expectedVersion the live version required, 0 = any
   * @return the new version and the kept expiry, or why the update was refused
   */
  public WriteResult update(String namespace, String key, byte[] value, long expectedVersion) {
    return join(updateAsync(namespace, key, value, expectedVersion));
  }

  /**
   * As {@link #refresh}, without waiting.
   *
   * @param namespace the namespace
   * @param key the key
   * @param ttl the new TTL from now, or {@link #NO_EXPIRY}
   * @param expectedVersion the live version required, 0 = any
   * @return the write's answer
   */
  public CompletableFuture<WriteResult> refreshAsync(String namespace, String key, Duration ttl,
      long expectedVersion) {
    return call(TtlOperation.REFRESH, new TtlRequest.Refresh(namespace, key, ttlMillis(ttl), expectedVersion),
        TtlResponse.WriteReply.class).thenApply(TtlEntries::write);
  }

  /**
   * Sets a live entry's expiry to now + {@code ttl}; value and version stay.
   * {@code expectedVersion} 0 = any. Absent or expired: outcome ENTRY_UNKNOWN.
   *
   * @param namespace the namespace
   * @param key the key
   * @param ttl the new TTL from now, or {@link #NO_EXPIRY}
   * @param expectedVersion the live version required, 0 = any
   * @return the kept version and new expiry, or why the refresh was refused
   */
  public WriteResult refresh(String namespace, String key, Duration ttl, long expectedVersion) {
    return join(refreshAsync(namespace, key, ttl, expectedVersion));
  }

  /**
   * As {@link #delete}, without waiting.
   *
   * @param namespace the namespace
   * @param key the key
   * @param expectedVersion the live version required, 0 = any
   * @return the delete's answer
   */
  public CompletableFuture<DeleteResult> deleteAsync(String namespace, String key,
      long expectedVersion) {
    return call(TtlOperation.DELETE, new TtlRequest.Delete(namespace, key, expectedVersion), TtlResponse.DeleteReply.class)
        .thenApply(r -> new DeleteResult(r.outcome(), r.message(), r.existed(), r.currentVersion()));
  }

  /**
   * Deletes the entry ({@code expectedVersion} 0 = whatever version).
   *
   * @param namespace the namespace
   * @param key the key
   * @param expectedVersion the live version required, 0 = any
   * @return whether an entry was there, or VERSION_MISMATCH
   */
  public DeleteResult delete(String namespace, String key, long expectedVersion) {
    return join(deleteAsync(namespace, key, expectedVersion));
  }

  /**
   * As {@link #get}, without waiting.
   *
   * @param namespace the namespace
   * @param key the key
   * @return the live entry, or empty
   */
  public CompletableFuture<Optional<Entry>> getAsync(String namespace, String key) {
    return call(TtlOperation.GET, new TtlRequest.Get(namespace, key, false), TtlResponse.GetReply.class)
        .thenApply(r -> r.found() ? Optional.of(entry(r.entry())) : Optional.empty());
  }

  /**
   * The live entry (linearizable; an expired entry is a miss).
   *
   * @param namespace the namespace
   * @param key the key
   * @return the live entry, or empty
   */
  public Optional<Entry> get(String namespace, String key) {
    return join(getAsync(namespace, key));
  }

  /**
   * As {@link #list}, without waiting.
   *
   * @param namespace the namespace
   * @param prefix the key prefix ("" for all)
   * @param limit the most entries to return, 1 to 1000
   * @return the entries
   */
  public CompletableFuture<EntryList> listAsync(String namespace, String prefix, int limit) {
    return call(TtlOperation.LIST, new TtlRequest.List(namespace, prefix, limit, false), TtlResponse.ListReply.class)
        .thenApply(r -> new EntryList(r.entries().stream().map(TtlEntries::entry).toList(),
            r.truncated(), LedgerTime.ofMillis(r.readAtMillis())));
  }

  /**
   * Live entries whose key starts with {@code prefix}, in key order (at most 1000).
   *
   * @param namespace the namespace
   * @param prefix the key prefix ("" for all)
   * @param limit the most entries to return, 1 to 1000
   * @return the entries, and whether more matched
   */
  public EntryList list(String namespace, String prefix, int limit) {
    return join(listAsync(namespace, prefix, limit));
  }

  /**
   * As {@link #setNamespace}, without waiting.
   *
   * @param spec the namespace and its capacity
   * @return the answer
   */
  public CompletableFuture<NamespaceResult> setNamespaceAsync(NamespaceSpec spec) {
    return call(TtlOperation.SET_NAMESPACE, new TtlRequest.SetNamespace(spec.name(), spec.maxEntries(), spec.maxBytes(),
        spec.whenFull()), TtlResponse.NamespaceReply.class)
        .thenApply(r -> new NamespaceResult(r.outcome(), r.message(), Optional.ofNullable(r.namespace()).map(TtlViews::namespace)));
  }

  /**
   * Creates or reconfigures a namespace: its capacity, and whether a full one refuses writes
   * or evicts.
   *
   * @param spec the namespace and its capacity
   * @return the namespace as now configured, or why the change was refused
   */
  public NamespaceResult setNamespace(NamespaceSpec spec) {
    return join(setNamespaceAsync(spec));
  }

  /**
   * As {@link #namespaces}, without waiting.
   *
   * @param namespace one namespace, or "" for all
   * @return the namespaces
   */
  public CompletableFuture<List<NamespaceInfo>> namespacesAsync(String namespace) {
    return call(TtlOperation.NAMESPACES, new TtlRequest.GetNamespaces(namespace, false), TtlResponse.NamespaceList.class)
        .thenApply(r -> r.namespaces().stream().map(TtlViews::namespace).toList());
  }

  /**
   * One namespace ({@code namespace} non-empty) or all of them ("").
   *
   * @param namespace one namespace, or "" for all
   * @return the namespaces with their capacity and counters
   */
  public List<NamespaceInfo> namespaces(String namespace) {
    return join(namespacesAsync(namespace));
  }

  // ---------------------------------------------------------------- locks

  /**
   * As {@link #tryLock}, without waiting.
   *
   * @param name the lock
   * @param owner who takes it (stored as the entry's value)
   * @param ttl how long the lock lasts unless refreshed or released
   * @return the lock, or empty when someone holds it
   */
  public CompletableFuture<Optional<Lock>> tryLockAsync(String name, String owner, Duration ttl) {
    return tryLockAsync(LOCK_NAMESPACE, name, owner, ttl);
  }

  /**
   * As {@link #tryLock(String, String, String, Duration)}, without waiting.
   *
   * @param namespace the namespace holding the lock's entry
   * @param name the lock
   * @param owner who takes it (stored as the entry's value)
   * @param ttl how long the lock lasts unless refreshed or released
   * @return the lock, or empty when someone holds it
   */
  public CompletableFuture<Optional<Lock>> tryLockAsync(String namespace, String name,
      String owner, Duration ttl) {
    return compareAndSetAsync(namespace, name, 0, owner.getBytes(StandardCharsets.UTF_8), ttl)
        .thenApply(r -> {
          if (r.outcome() == Outcome.SUCCESS) {
            for (TtlListener l : listeners) {
              l.onLockAcquired(name, r.version());
            }
            return Optional.of(new Lock(this, namespace, name, owner, r.version(), r.expiresAt()));
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
   * is held. The lock lapses by itself {@code ttl} of ledger time after it was taken (or last
   * refreshed) unless released. See {@link Lock} for the fencing token.
   *
   * @param name the lock
   * @param owner who takes it (stored as the entry's value)
   * @param ttl how long the lock lasts unless refreshed or released
   * @return the lock, or empty when someone holds it
   */
  public Optional<Lock> tryLock(String name, String owner, Duration ttl) {
    return join(tryLockAsync(name, owner, ttl));
  }

  /**
   * {@link #tryLock(String, String, Duration)} in {@code namespace}: with security on, a tenant's
   * locks belong in one of its own namespaces ({@code <tenant>/locks}), where no other tenant
   * can take, read or release them; the shared {@link #LOCK_NAMESPACE} needs a grant on it.
   *
   * @param namespace the namespace holding the lock's entry
   * @param name the lock
   * @param owner who takes it (stored as the entry's value)
   * @param ttl how long the lock lasts unless refreshed or released
   * @return the lock, or empty when someone holds it
   */
  public Optional<Lock> tryLock(String namespace, String name, String owner, Duration ttl) {
    return join(tryLockAsync(namespace, name, owner, ttl));
  }

  // ---------------------------------------------------------------- helpers

  /** The wire form of a TTL: milliseconds, -1 for no expiry. */
  static long ttlMillis(Duration ttl) {
    if (ttl.equals(NO_EXPIRY)) {
      return -1;
    }
    if (ttl.isNegative()) {
      throw new IllegalArgumentException("TTL must not be negative: " + ttl);
    }
    try {
      return ttl.toMillis();
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("TTL too long (use NO_EXPIRY for none): " + ttl, e);
    }
  }

  private static WriteResult write(TtlResponse.WriteReply r) {
    return new WriteResult(r.outcome(), r.message(), r.version(),
        LedgerTime.ofMillis(Math.max(0, r.expiresAtMillis())), r.currentVersion());
  }

  private static Entry entry(TtlResponse.EntryInfo e) {
    return new Entry(e.namespace(), e.key(), e.value(), e.version(),
        LedgerTime.ofMillis(e.expiresAtMillis()));
  }

  // ---------------------------------------------------------------- watches

  /** How long a watch poll waits at the node for a change before it is answered empty. */
  public static final Duration DEFAULT_WATCH_WAIT = Duration.ofSeconds(1);

  /**
   * Watches {@code namespace}: {@code listener} is told every put, refresh, delete, expiry and
   * eviction after log index {@code fromIndex}, in log order, on a thread of the watch's own,
   * until the watch is closed. {@code fromIndex} −1 starts from now; a position a listener was
   * told ({@link TtlWatch#position()}) resumes after it, even across clients, leader changes and
   * reconnections, while the cluster still holds the changes after it (else
   * {@link TtlWatchListener#onCompacted}).
   *
   * <p>The watch is a sequence of long polls answered by the leader: at once when it has
   * changes, else after at most {@link #DEFAULT_WATCH_WAIT} and a ReadIndex (so an empty answer
   * means nothing was committed before the poll was sent).
   *
   * @param namespace the namespace
   * @param fromIndex the log index to start after, or −1 for now
   * @param listener what to tell
   * @return the running watch; close it to stop
   */
  public TtlWatch watch(String namespace, long fromIndex, TtlWatchListener listener) {
    return watch(namespace, fromIndex, DEFAULT_WATCH_WAIT, listener);
  }

  /**
   * As {@link #watch(String, long, TtlWatchListener)}, each poll waiting at most {@code wait}.
   *
   * @param namespace the namespace
   * @param fromIndex the log index to start after, or −1 for now
   * @param wait how long a poll waits for a change (1 ms to 60 s; it must leave a second of the
   *     client's request deadline)
   * @param listener what to tell
   * @return the running watch; close it to stop
   */
  public TtlWatch watch(String namespace, long fromIndex, Duration wait, TtlWatchListener listener) {
    if (fromIndex < -1) {
      throw new IllegalArgumentException("fromIndex " + fromIndex + " < -1 (-1: from now)");
    }
    return TtlWatch.start(this, namespace, fromIndex, waitMillis(wait), listener);
  }

  /**
   * A near cache of {@code namespace}: {@code get} answered from this process's memory while a
   * watch keeps it current (docs/TTL.md, "Near cache"), from the cluster otherwise.
   *
   * @param namespace the namespace
   * @param options its bounds and staleness
   * @return the running cache; close it to stop its watch
   */
  public NearCache cached(String namespace, NearCache.Options options) {
    return NearCache.start(this, namespace, options);
  }

  static long waitMillis(Duration wait) {
    if (wait.isNegative() || wait.isZero() || wait.compareTo(Duration.ofSeconds(60)) > 0) {
      throw new IllegalArgumentException("watch wait " + wait + " outside (0, 60s]");
    }
    return Math.max(1, wait.toMillis());
  }

  /** One watch poll; {@code waitMillis} 0 answers at once; {@code confirm} asks for a ReadIndex. */
  CompletableFuture<WatchPoll> pollAsync(String namespace, long fromIndex, long waitMillis,
      List<String> keys, boolean confirm) {
    long sent = clock.nanoTime();
    List<TtlRequest.WatchKey> asked = keys.stream().map(TtlRequest.WatchKey::new).toList();
    return call(TtlOperation.WATCH,
        new TtlRequest.Watch(namespace, fromIndex, waitMillis, asked, confirm),
        TtlResponse.WatchReply.class).thenApply(r -> new WatchPoll(fromIndex,
            r.changes().stream().map(c -> new Change(c.index(), c.kind(), namespace, c.key(),
                c.version(), LedgerTime.ofMillis(c.expiresAtMillis()), c.value())).toList(),
            r.throughIndex(), r.compacted(), r.truncated(),
            r.entries().stream().map(TtlEntries::entry).toList(), r.readAtMillis(), sent,
            r.confirmed()));
  }

  /** The clock this client's deadlines are judged by. */
  MonotonicClock clock() {
    return clock;
  }

  /** A holder's refresh or release found its lock gone. */
  void lockLost(String name, long fencingToken) {
    for (TtlListener l : listeners) {
      l.onLockLost(name, fencingToken);
    }
  }

  private <T extends TtlResponse> CompletableFuture<T> call(TtlOperation operation,
      TtlRequest request, Class<T> type) {
    return calls.call(operation, request, type);
  }

  static <T> T join(CompletableFuture<T> f) {
    return WrappedCalls.join(f);
  }
}
