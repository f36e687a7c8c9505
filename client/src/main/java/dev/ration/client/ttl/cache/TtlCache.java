package dev.ration.client.ttl.cache;

import dev.ration.client.time.MonotonicClock;
import dev.ration.client.time.MonotonicInstant;
import dev.ration.client.ttl.TtlEntries;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * An in-process cache whose entries expire at absolute instants of an injected
 * {@link MonotonicClock}, bounded by entries and by bytes:
 *
 * <pre>{@code
 * TtlCache<String, byte[]> cache = TtlCache.builder()
 *     .maxEntries(100_000)
 *     .maxBytes(64L << 20, (String k, byte[] v) -> k.length() + v.length)
 *     .policy(EvictionPolicy.LRU)
 *     .build();
 * cache.put("u-42", token, Duration.ofMinutes(30));
 * Optional<byte[]> live = cache.get("u-42");        // never an expired value
 * byte[] loaded = cache.getOrLoad("u-43", Duration.ofMinutes(30), key -> fetch(key));
 * }</pre>
 *
 * <p><b>Expiry.</b> Every entry has an absolute expiry on the cache's clock, or none. An entry is
 * expired once {@code now >= expiresAt}: the instant of expiry itself is expired, as for the
 * replicated TTL entries. Reads judge that against the clock at the moment they read, so a value
 * is never returned after its expiry, however late the clean-up runs. A write whose expiry is
 * not after now (a TTL of zero or less, an instant already passed) leaves the key absent, as
 * Redis's {@code EXPIRE} with a TTL of zero or less deletes the key.
 *
 * <p><b>Clean-up.</b> Expired entries stay in memory, invisible, until removed. An expiry index
 * (a heap ordered by expiry) gives them up soonest first: every write removes up to
 * {@value #SWEEP_PER_WRITE} of them, {@link #cleanUp} removes up to the sweep batch, and
 * {@link Builder#sweepEvery} runs {@code cleanUp} periodically on the caller's executor. A write
 * that needs room removes every expired entry it needs before it evicts a live one.
 *
 * <p><b>Capacity.</b> At most {@code maxEntries} entries and {@code maxBytes} bytes by the
 * weigher, expired entries included until removed. A value heavier than {@code maxBytes} alone is
 * not kept. When a write needs room and no expired entry is left, the {@link EvictionPolicy}
 * chooses the victim; the entry being written is never its own victim.
 *
 * <p><b>Threads.</b> Safe for any number of threads. Reads ({@code get}, {@code ttl}, the first
 * look of {@code getOrLoad}) take no lock: a hash lookup that yields an immutable (value,
 * expiry) holder, a clock read, and for LRU and LFU one CAS to record the read in a lossy
 * striped buffer that writes apply later. Writes take one lock per cache; every mutation of the map happens under
 * it, so each key's reads and writes are linearizable. {@link #getOrLoad} runs at most one load
 * per key at a time.
 *
 * <p><b>Invariants</b>, checked after every write (the bounds) and by {@link #verify} (all):
 * entries and bytes within their bounds; the map, the expiry index and the eviction order hold
 * the same entries; the bytes held are the sum of the entries' bytes; every value stored has
 * either left, counted under one {@link EvictionReason}, or is still held.
 *
 * @param <K> the key type; keys are compared by {@code equals}, as in a {@code HashMap}
 * @param <V> the value type
 */
public final class TtlCache<K, V> implements AutoCloseable {
  /** The TTL of an entry that never expires; the same value as {@link TtlEntries#NO_EXPIRY}. */
  public static final Duration NO_EXPIRY = TtlEntries.NO_EXPIRY;
  /** The expiry, in nanoseconds of the clock, of an entry that never expires. */
  static final long NEVER = Long.MAX_VALUE;
  /** Expired entries each write removes at most: clean-up paid a little at a time. */
  static final int SWEEP_PER_WRITE = 4;

  private final ConcurrentHashMap<K, Node.Held<K, V>> map = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<K, Load<V>> loading = new ConcurrentHashMap<>();
  private final ReentrantLock lock = new ReentrantLock();
  private final MonotonicClock clock;
  private final long maxEntries;
  private final long maxBytes;
  private final Weigher<? super K, ? super V> weigher;
  private final EvictionPolicy policy;
  private final int sweepBatch;
  private final ExpiryIndex<K, V> index = new ExpiryIndex<>();
  private final EvictionOrder<K, V> order;
  private final boolean recordsReads;
  private final ReadBuffer<Node<K, V>> reads;
  private final Consumer<Node<K, V>> applyRead;
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder loads = new LongAdder();
  private final LongAdder loadFailures = new LongAdder();
  private volatile ScheduledFuture<?> sweeps;

  // Under the lock.
  private long entries;
  private long bytes;
  /** Counts writes that set an expiry: the expiry index's tie-break. */
  private long sequence;
  private long stored;
  private long expired;
  private long evictedForCapacity;
  private long deleted;
  private long replaced;

  private TtlCache(Builder<?, ?> b, Weigher<? super K, ? super V> weigher) {
    this.clock = b.clock;
    this.maxEntries = b.maxEntries;
    this.maxBytes = b.maxBytes;
    this.weigher = weigher;
    this.policy = b.policy;
    this.sweepBatch = b.sweepBatch;
    this.order = switch (b.policy) {
      case LRU -> new LeastRecentOrder<>();
      case LFU -> new FrequencyOrder<>();
      case SOONEST_EXPIRING -> new SoonestExpiringOrder<>(index);
    };
    this.recordsReads = order.ordersReads();
    this.reads = new ReadBuffer<>(Runtime.getRuntime().availableProcessors());
    this.applyRead = node -> {
      if (!node.removed) {
        order.touched(node);
      }
    };
  }

  /**
   * A builder with the defaults: 10,000 entries, no byte bound, {@link EvictionPolicy#LRU}, the
   * system's monotonic clock, sweeps of 1,024 entries and no background sweep.
   *
   * @return a builder; its type parameters narrow at {@link Builder#maxBytes} and
   *     {@link Builder#build}
   */
  public static Builder<Object, Object> builder() {
    return new Builder<>();
  }

  // ---------------------------------------------------------------- reads

  /**
   * The live value of {@code key}. Counts a hit or a miss. Takes no lock.
   *
   * @param key the key
   * @return its value, or empty if it is absent or expired
   */
  public Optional<V> get(K key) {
    Node.Held<K, V> held = map.get(key);
    if (held != null && held.liveAt(clock.nanoTime())) {
      hits.increment();
      recordRead(held.node);
      return Optional.of(held.value);
    }
    misses.increment();
    return Optional.empty();
  }

  /**
   * The time {@code key} has left to live. Neither a hit nor a miss, nor a use for LRU or LFU.
   * Takes no lock.
   *
   * @param key the key
   * @return the time until it expires (positive), {@link #NO_EXPIRY} if it never does, or empty
   *     if it is absent or expired
   */
  public Optional<Duration> ttl(K key) {
    Node.Held<K, V> held = map.get(key);
    if (held == null) {
      return Optional.empty();
    }
    long now = clock.nanoTime();
    if (!held.liveAt(now)) {
      return Optional.empty();
    }
    if (held.expiresAtNanos == NEVER) {
      return Optional.of(NO_EXPIRY);
    }
    return Optional.of(Duration.ofNanos(held.expiresAtNanos).minus(Duration.ofNanos(now)));
  }

  /**
   * The live value of {@code key}, or the value {@code loader} gives for it, stored with
   * {@code ttl}. At most one load per key runs at a time: callers that miss while a load of their
   * key runs wait for it and get its result. A failed load stores nothing and throws
   * {@link CacheLoadException} to its caller and every waiter; the next call loads again. If a
   * write stored a value for the key while the load ran, that value wins and is returned instead
   * of the loaded one. The first look counts a hit or a miss; a load counts in {@code loads} or
   * {@code loadFailures}.
   *
   * @param key the key
   * @param ttl how long a loaded value lives, or {@link #NO_EXPIRY}; zero or less stores it
   *     already expired (it is returned, and the next call loads again)
   * @param loader computes the value, on this thread, outside the cache's lock; it must not load
   *     the same key from this cache
   * @return the value
   * @throws CacheLoadException if the load this call ran or waited on failed
   * @throws IllegalStateException if the loader loads its own key again (it would wait forever)
   */
  public V getOrLoad(K key, Duration ttl, Loader<? super K, ? extends V> loader) {
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(loader, "loader");
    Optional<V> hit = get(key);
    if (hit.isPresent()) {
      return hit.get();
    }
    Load<V> mine = new Load<>(Thread.currentThread(), new CompletableFuture<>());
    Load<V> running = loading.putIfAbsent(key, mine);
    if (running != null) {
      if (running.thread == Thread.currentThread()) {
        throw new IllegalStateException("the loader of key " + key + " loads the same key again");
      }
      return running.await(key);
    }
    try {
      // A load that ended between the look above and putIfAbsent has stored its value by now.
      Optional<V> storedMeanwhile = peek(key);
      if (storedMeanwhile.isPresent()) {
        mine.result.complete(storedMeanwhile.get());
        return storedMeanwhile.get();
      }
      V value;
      try {
        value = loader.load(key);
        if (value == null) {
          throw new NullPointerException("the loader returned null for key " + key);
        }
      } catch (Exception e) {
        loadFailures.increment();
        mine.result.completeExceptionally(e);
        throw new CacheLoadException(key, e);
      }
      loads.increment();
      V result = storeLoaded(key, value, ttl);
      mine.result.complete(result);
      return result;
    } finally {
      if (!mine.result.isDone()) {
        // An Error, or a bug in storing: the waiters must not wait forever for this load.
        mine.result.completeExceptionally(new IllegalStateException("the load of key " + key + " ended without a result"));
      }
      loading.remove(key, mine);
    }
  }

  // ---------------------------------------------------------------- writes

  /**
   * Stores {@code value} for {@code key} with no expiry, replacing any value it had.
   *
   * @param key the key
   * @param value the value
   */
  public void put(K key, V value) {
    put(key, value, NO_EXPIRY);
  }

  /**
   * Stores {@code value} for {@code key}, expiring {@code ttl} from now, replacing any value and
   * expiry it had. A TTL of zero or less leaves the key absent (the old value counts as
   * replaced, the new one as expired).
   *
   * @param key the key
   * @param value the value
   * @param ttl how long it lives, or {@link #NO_EXPIRY}
   */
  public void put(K key, V value, Duration ttl) {
    Objects.requireNonNull(ttl, "ttl");
    long valueBytes = weigh(key, value);
    lock.lock();
    try {
      long now = clock.nanoTime();
      maintain(now);
      store(key, value, valueBytes, expiryOf(now, ttl), now, liveNode(key, now), false);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stores {@code value} for {@code key}, expiring at {@code expiresAt} on the cache's clock,
   * replacing any value and expiry it had. An instant not after now leaves the key absent, as
   * {@link #put(Object, Object, Duration)} with a TTL of zero.
   *
   * @param key the key
   * @param value the value
   * @param expiresAt the first instant of the cache's clock at which it is expired
   */
  public void putUntil(K key, V value, MonotonicInstant expiresAt) {
    Objects.requireNonNull(expiresAt, "expiresAt");
    long valueBytes = weigh(key, value);
    lock.lock();
    try {
      long now = clock.nanoTime();
      maintain(now);
      store(key, value, valueBytes, expiresAt.nanos(), now, liveNode(key, now), false);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Replaces the value of a live {@code key} and keeps its expiry (Redis's {@code SET ... KEEPTTL}).
   * An absent or expired key is left alone: there is no expiry to keep, and a value without one
   * is what {@link #put(Object, Object)} says explicitly.
   *
   * @param key the key
   * @param value the new value
   * @return whether the key was live and its value replaced
   */
  public boolean putKeepTtl(K key, V value) {
    long valueBytes = weigh(key, value);
    lock.lock();
    try {
      long now = clock.nanoTime();
      maintain(now);
      Node<K, V> node = liveNode(key, now);
      if (node == null) {
        return false;
      }
      store(key, value, valueBytes, node.expiresAtNanos, now, node, true);
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Sets the expiry of a live {@code key} to {@code ttl} from now, keeping its value. A TTL of
   * zero or less removes it, counted as expired (Redis's {@code EXPIRE}). Not a use for LRU or
   * LFU.
   *
   * @param key the key
   * @param ttl its new time to live, or {@link #NO_EXPIRY}
   * @return whether the key was live
   */
  public boolean expire(K key, Duration ttl) {
    Objects.requireNonNull(ttl, "ttl");
    lock.lock();
    try {
      long now = clock.nanoTime();
      maintain(now);
      Node<K, V> node = liveNode(key, now);
      if (node == null) {
        return false;
      }
      long expiresAt = expiryOf(now, ttl);
      if (expiresAt <= now) {
        remove(node, EvictionReason.EXPIRED);
        return true;
      }
      publish(node, node.held.value, expiresAt);
      node.expiresAtNanos = expiresAt;
      node.expirySequence = ++sequence;
      index.moved(node);
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Removes {@code key}.
   *
   * @param key the key
   * @return whether it was live (an expired entry is removed too, counted as expired, and this
   *     answers false)
   */
  public boolean delete(K key) {
    Objects.requireNonNull(key, "key");
    lock.lock();
    try {
      long now = clock.nanoTime();
      maintain(now);
      Node<K, V> node = liveNode(key, now);
      if (node == null) {
        return false;
      }
      remove(node, EvictionReason.DELETED);
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Applies the reads recorded since the last write to the eviction order, and removes up to the
   * sweep batch of expired entries, soonest expired first. O(batch · log n).
   *
   * @return how many expired entries it removed; as many as the batch means more may be left
   */
  public int cleanUp() {
    lock.lock();
    try {
      drainReads();
      return sweep(clock.nanoTime(), sweepBatch);
    } finally {
      lock.unlock();
    }
  }

  /**
   * The counters, and the entries and bytes held.
   *
   * @return a snapshot
   */
  public CacheStats stats() {
    lock.lock();
    try {
      return new CacheStats(hits.sum(), misses.sum(), loads.sum(), loadFailures.sum(), stored,
          expired, evictedForCapacity, deleted, replaced, entries, bytes);
    } finally {
      lock.unlock();
    }
  }

  /**
   * The policy this cache evicts by.
   *
   * @return the policy it was built with
   */
  public EvictionPolicy policy() {
    return policy;
  }

  /**
   * Checks every invariant of the class comment, walking every entry: O(n), under the write lock.
   * For tests, and for a service that wants to check a cache at a quiet moment.
   *
   * @throws IllegalStateException naming the values that break one
   */
  public void verify() {
    lock.lock();
    try {
      long counted = 0;
      long sumBytes = 0;
      for (Map.Entry<K, Node.Held<K, V>> e : map.entrySet()) {
        Node<K, V> n = e.getValue().node;
        if (!n.key.equals(e.getKey()) || n.held != e.getValue() || n.removed || !index.holds(n)
            || n.expiresAtNanos != n.held.expiresAtNanos || n.bytes < 0) {
          throw new IllegalStateException("entry " + n + " under key " + e.getKey() + ": the map's "
              + (n.held == e.getValue() ? "current" : "stale") + " value, removed " + n.removed
              + ", indexed " + index.holds(n) + ", value expires at " + e.getValue().expiresAtNanos);
        }
        counted++;
        sumBytes += n.bytes;
      }
      long indexed = index.verify();
      long ordered = order.verify();
      if (counted != entries || indexed != entries || ordered != entries || sumBytes != bytes) {
        throw new IllegalStateException(String.format(
            "entries %d, in the map %d, in the expiry index %d, in the %s order %d; bytes %d, summed %d",
            entries, counted, indexed, policy, ordered, bytes, sumBytes));
      }
      checkBounds();
      long left = expired + evictedForCapacity + deleted + replaced;
      if (stored != entries + left) {
        throw new IllegalStateException(String.format(
            "stored %d != entries %d + evictions %d (expired %d, size %d, deleted %d, replaced %d)",
            stored, entries, left, expired, evictedForCapacity, deleted, replaced));
      }
    } finally {
      lock.unlock();
    }
  }

  /** Stops the background sweep, if {@link Builder#sweepEvery} started one. The cache stays usable. */
  @Override
  public void close() {
    ScheduledFuture<?> s = sweeps;
    if (s != null) {
      s.cancel(false);
    }
  }

  /** Every key held, expired ones included until removed: what the tests compare with a model. */
  Set<K> storedKeys() {
    lock.lock();
    try {
      return new HashSet<>(map.keySet());
    } finally {
      lock.unlock();
    }
  }

  // ---------------------------------------------------------------- internals

  /**
   * The live value of {@code key} without counting a hit or a miss or recording a use (an
   * eviction policy does not see it). Takes no lock.
   *
   * @param key the key
   * @return its value, or empty if it is absent or expired
   */
  public Optional<V> peek(K key) {
    Node.Held<K, V> held = map.get(key);
    if (held != null && held.liveAt(clock.nanoTime())) {
      return Optional.of(held.value);
    }
    return Optional.empty();
  }

  private V storeLoaded(K key, V value, Duration ttl) {
    long valueBytes = weigh(key, value);
    lock.lock();
    try {
      long now = clock.nanoTime();
      maintain(now);
      Node<K, V> written = liveNode(key, now);
      if (written != null) {
        return written.held.value;
      }
      store(key, value, valueBytes, expiryOf(now, ttl), now, null, false);
      return value;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Records a read for LRU or LFU. A full stripe is drained by this reader if the lock is free;
   * otherwise the read is dropped rather than waited for.
   */
  private void recordRead(Node<K, V> node) {
    if (!recordsReads) {
      return;
    }
    if (reads.offer(node) == ReadBuffer.Offer.FULL && lock.tryLock()) {
      try {
        reads.drainOwnStripe(applyRead);
        applyRead.accept(node);
      } finally {
        lock.unlock();
      }
    }
  }

  /** Under the lock: what every write does first. */
  private void maintain(long now) {
    drainReads();
    sweep(now, SWEEP_PER_WRITE);
  }

  private void drainReads() {
    if (recordsReads) {
      reads.drain(applyRead);
    }
  }

  /** Under the lock: removes up to {@code budget} expired entries, soonest first. */
  private int sweep(long now, int budget) {
    int removed = 0;
    while (removed < budget) {
      Node<K, V> first = index.first();
      if (first == null || now < first.expiresAtNanos) {
        break;
      }
      remove(first, EvictionReason.EXPIRED);
      removed++;
    }
    return removed;
  }

  /** Under the lock: the node of {@code key} if live; an expired one is removed on the way. */
  private Node<K, V> liveNode(K key, long now) {
    Node.Held<K, V> held = map.get(key);
    Node<K, V> node = held == null ? null : held.node;
    if (node != null && !(now < node.expiresAtNanos)) {
      remove(node, EvictionReason.EXPIRED);
      return null;
    }
    return node;
  }

  /**
   * Under the lock: stores a value for {@code key}, whose live node is {@code existing} (or null),
   * making room first.
   */
  private void store(K key, V value, long valueBytes, long expiresAt, long now, Node<K, V> existing,
      boolean keepsExpiry) {
    stored++;
    if (expiresAt <= now || valueBytes > maxBytes) {
      if (existing != null) {
        remove(existing, EvictionReason.REPLACED);
      }
      count(expiresAt <= now ? EvictionReason.EXPIRED : EvictionReason.CAPACITY);
      return;
    }
    if (existing == null) {
      makeRoom(1, valueBytes, null, now);
      Node<K, V> node = new Node<>(key, expiresAt, valueBytes, ++sequence);
      index.add(node);
      order.added(node);
      entries++;
      bytes += valueBytes;
      Node.Held<K, V> held = new Node.Held<>(value, expiresAt, node);
      node.held = held;
      Node.Held<K, V> before = map.put(key, held);
      if (before != null) {
        throw new IllegalStateException("key " + key + " had node " + before.node + " while absent");
      }
    } else {
      makeRoom(0, valueBytes - existing.bytes, existing, now);
      count(EvictionReason.REPLACED);
      bytes += valueBytes - existing.bytes;
      existing.bytes = valueBytes;
      publish(existing, value, expiresAt);
      if (!keepsExpiry) {
        existing.expiresAtNanos = expiresAt;
        existing.expirySequence = ++sequence;
        index.moved(existing);
      }
      order.touched(existing);
    }
    checkBounds();
  }

  /**
   * Under the lock: removes entries until {@code moreEntries} and {@code moreBytes} fit, expired
   * ones first (soonest first), then the policy's victims; never {@code excluded}.
   */
  private void makeRoom(long moreEntries, long moreBytes, Node<K, V> excluded, long now) {
    while (entries + moreEntries > maxEntries || bytes + moreBytes > maxBytes) {
      Node<K, V> first = index.firstExcept(excluded);
      if (first != null && !(now < first.expiresAtNanos)) {
        remove(first, EvictionReason.EXPIRED);
        continue;
      }
      Node<K, V> victim = order.victim(excluded);
      if (victim == null) {
        throw new IllegalStateException(String.format(
            "no %s victim for %d more entries and %d more bytes: entries %d of %d, bytes %d of %d",
            policy, moreEntries, moreBytes, entries, maxEntries, bytes, maxBytes));
      }
      remove(victim, EvictionReason.CAPACITY);
    }
  }

  /** Under the lock: the new value and expiry of a present key, visible to readers at once. */
  private void publish(Node<K, V> node, V value, long expiresAt) {
    Node.Held<K, V> held = new Node.Held<>(value, expiresAt, node);
    if (map.replace(node.key, node.held, held)) {
      node.held = held;
    } else {
      throw new IllegalStateException("replacing the value of " + node + ": the map holds another");
    }
  }

  /** Under the lock. */
  private void remove(Node<K, V> node, EvictionReason reason) {
    if (!map.remove(node.key, node.held)) {
      throw new IllegalStateException("removing " + node + " for " + reason + ": not in the map");
    }
    index.remove(node);
    order.removed(node);
    node.removed = true;
    entries--;
    bytes -= node.bytes;
    count(reason);
  }

  private void count(EvictionReason reason) {
    switch (reason) {
      case EXPIRED -> expired++;
      case CAPACITY -> evictedForCapacity++;
      case DELETED -> deleted++;
      case REPLACED -> replaced++;
    }
  }

  private void checkBounds() {
    if (entries > maxEntries || bytes > maxBytes || entries < 0 || bytes < 0) {
      throw new IllegalStateException(String.format("entries %d of %d, bytes %d of %d",
          entries, maxEntries, bytes, maxBytes));
    }
  }

  private long weigh(K key, V value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    long b = weigher.bytes(key, value);
    if (b < 0) {
      throw new IllegalArgumentException("the weigher gave " + b + " bytes for key " + key);
    }
    return b;
  }

  /** The expiry of a TTL given now: saturating, so a long TTL never lands in the past. */
  static long expiryOf(long now, Duration ttl) {
    if (ttl.equals(NO_EXPIRY)) {
      return NEVER;
    }
    return new MonotonicInstant(now).plus(ttl).nanos();
  }

  /** A load in progress: its thread (to refuse a recursive load) and its result. */
  private record Load<V>(Thread thread, CompletableFuture<V> result) {
    V await(Object key) {
      try {
        return result.join();
      } catch (CompletionException e) {
        throw new CacheLoadException(key, e.getCause());
      }
    }
  }

  /**
   * Builds a {@link TtlCache}; not thread-safe.
   *
   * @param <K> the key type the cache will have, narrowed by {@link #maxBytes} or {@link #build}
   * @param <V> the value type, likewise
   */
  public static final class Builder<K, V> {
    private long maxEntries = 10_000;
    private long maxBytes = Long.MAX_VALUE;
    private Weigher<?, ?> weigher = (k, v) -> 0L;
    private EvictionPolicy policy = EvictionPolicy.LRU;
    private MonotonicClock clock = MonotonicClock.SYSTEM;
    private int sweepBatch = 1_024;
    private Duration sweepPeriod;
    private ScheduledExecutorService sweepExecutor;

    private Builder() {}

    /**
     * The most entries the cache holds, expired ones included until removed.
     *
     * @param n positive
     * @return this builder
     */
    public Builder<K, V> maxEntries(long n) {
      this.maxEntries = n;
      return this;
    }

    /**
     * The most bytes the cache holds, as {@code weigher} counts them.
     *
     * @param n positive
     * @param weigher an entry's bytes
     * @param <K1> the key type
     * @param <V1> the value type
     * @return this builder, typed for the weigher
     */
    @SuppressWarnings("unchecked")
    public <K1 extends K, V1 extends V> Builder<K1, V1> maxBytes(long n, Weigher<? super K1, ? super V1> weigher) {
      this.maxBytes = n;
      this.weigher = Objects.requireNonNull(weigher, "weigher");
      return (Builder<K1, V1>) this;
    }

    /**
     * The policy that picks a live entry to evict when a write needs room.
     *
     * @param policy the policy
     * @return this builder
     */
    public Builder<K, V> policy(EvictionPolicy policy) {
      this.policy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * The clock expiry is judged by; {@link MonotonicClock#SYSTEM} by default.
     *
     * @param clock thread-safe, never going backwards
     * @return this builder
     */
    public Builder<K, V> clock(MonotonicClock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * The most expired entries one {@link TtlCache#cleanUp} removes, and so one background sweep.
     *
     * @param n positive
     * @return this builder
     */
    public Builder<K, V> sweepBatch(int n) {
      this.sweepBatch = n;
      return this;
    }

    /**
     * Runs {@link TtlCache#cleanUp} every {@code period} on {@code executor}, from when the cache
     * is built until {@link TtlCache#close}. The task holds the cache, so a cache with a sweep
     * lives until it is closed.
     *
     * @param period positive
     * @param executor the caller's executor; the cache never shuts it down
     * @return this builder
     */
    public Builder<K, V> sweepEvery(Duration period, ScheduledExecutorService executor) {
      this.sweepPeriod = Objects.requireNonNull(period, "period");
      this.sweepExecutor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /**
     * The cache.
     *
     * @param <K1> the key type
     * @param <V1> the value type
     * @return a new, empty cache
     * @throws IllegalArgumentException naming a bound that is not positive
     */
    @SuppressWarnings("unchecked")
    public <K1 extends K, V1 extends V> TtlCache<K1, V1> build() {
      if (maxEntries <= 0 || maxBytes <= 0 || sweepBatch <= 0) {
        throw new IllegalArgumentException(String.format(
            "maxEntries %d, maxBytes %d and sweepBatch %d must be positive", maxEntries, maxBytes, sweepBatch));
      }
      if (sweepPeriod != null && (sweepPeriod.isNegative() || sweepPeriod.isZero())) {
        throw new IllegalArgumentException("sweep period must be positive: " + sweepPeriod);
      }
      TtlCache<K1, V1> cache = new TtlCache<>(this, (Weigher<? super K1, ? super V1>) weigher);
      if (sweepExecutor != null) {
        long periodNanos = sweepPeriod.toNanos();
        cache.sweeps = sweepExecutor.scheduleWithFixedDelay(cache::cleanUp, periodNanos, periodNanos,
            TimeUnit.NANOSECONDS);
      }
      return cache;
    }
  }
}
