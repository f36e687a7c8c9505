package dev.ration.client.ttl;

import dev.ration.client.time.MonotonicClock;
import dev.ration.client.time.MonotonicInstant;
import dev.ration.client.ttl.cache.EvictionPolicy;
import dev.ration.client.ttl.cache.TtlCache;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * A near cache of one namespace's TTL entries ({@link TtlEntries#cached}): {@link #get} is
 * answered from this process's memory while the cache is current, from the cluster otherwise.
 *
 * <p><b>How it stays current.</b> A thread long-polls the namespace's changes (a watch) and
 * applies each to the keys the cache holds, in log order; the cache is the namespace as of one
 * log index, its {@link #position()}. A miss asks the cluster for the key together with every
 * change since the position, in one answer read at one index, so a loaded entry is never older
 * than a change already applied. Absent keys are cached too (a later put is a change).
 *
 * <p><b>Coherence rule.</b> (1) {@code get} never returns a value older than a change the cache
 * has applied (and told its listener of). (2) It never returns an expired entry: an entry is
 * served from memory only while ledger time, estimated from the clock of the answer that
 * brought it, stays {@link Options#expiryMargin} short of its expiry; past that it is read from
 * the cluster. (3) It serves from memory only while its last complete answer was sent within
 * {@link Options#maxStaleness}: every change committed before that send is applied, so a value
 * served at time t is at most {@code maxStaleness} behind the cluster (a write acknowledged
 * before {@code t − maxStaleness} is visible). When the watch is lost the cache answers from the
 * cluster until a poll succeeds; when the cluster no longer holds the changes after its
 * position (a restart, a snapshot install) it drops everything and starts again from the
 * answer's index.
 *
 * <p>Thread-safe; reads take no lock (those of the underlying {@link TtlCache}).
 */
public final class NearCache implements AutoCloseable {
  /** How much faster than this client's clock ledger time is assumed to run, at most. */
  static final double CLOCK_RATE_BOUND = 1.001;

  /**
   * Bounds and staleness of a {@link NearCache}.
   *
   * @param maxEntries keys held at most (present and absent ones), least recently used evicted
   * @param pollWait how long one watch poll waits at the node for a change
   * @param maxStaleness how old the last complete answer may be for memory to answer
   * @param expiryMargin how long before its ledger expiry an entry is no longer served from
   *     memory: covers clock skew between the nodes that judge expiry
   * @param listener told of every change the cache applies, after it applied it, in log order
   *     (may be null); called with the cache's apply lock held, on the thread that applied the
   *     change (the cache's watch thread, or a reader whose miss brought it): it must return
   *     quickly and must not call the cache
   */
  public record Options(long maxEntries, Duration pollWait, Duration maxStaleness,
      Duration expiryMargin, TtlWatchListener listener) {
    /**
     * Options, checked.
     *
     * @param maxEntries keys held at most
     * @param pollWait a poll's wait
     * @param maxStaleness how old the last answer may be
     * @param expiryMargin expiry margin
     * @param listener change listener, or null
     */
    public Options {
      if (maxEntries < 1) {
        throw new IllegalArgumentException("maxEntries " + maxEntries + " < 1");
      }
      TtlEntries.waitMillis(pollWait);
      if (maxStaleness.compareTo(pollWait.multipliedBy(2)) <= 0) {
        // An idle poll is answered after its wait, and its confirmation dates from when it was
        // sent: just before the next answer arrives it is two waits (and two round trips) old.
        throw new IllegalArgumentException("maxStaleness " + maxStaleness
            + " must exceed twice pollWait " + pollWait + " (and the round trips), or an idle"
            + " cache stops answering from memory before each poll's answer");
      }
      if (expiryMargin.isNegative()) {
        throw new IllegalArgumentException("expiryMargin " + expiryMargin + " < 0");
      }
    }

    /**
     * 10,000 keys, polls of 500 ms, answers from memory while the last confirmed answer was sent
     * under 2 s ago, entries served until 100 ms before they expire, no listener.
     *
     * @return the defaults
     */
    public static Options defaults() {
      return new Options(10_000, Duration.ofMillis(500), Duration.ofSeconds(2),
          Duration.ofMillis(100), null);
    }

    /**
     * These options holding at most {@code n} keys.
     *
     * @param n keys
     * @return new options
     */
    public Options withMaxEntries(long n) {
      return new Options(n, pollWait, maxStaleness, expiryMargin, listener);
    }

    /**
     * These options with another staleness bound and poll wait.
     *
     * @param wait a poll's wait
     * @param staleness the bound
     * @return new options
     */
    public Options withStaleness(Duration wait, Duration staleness) {
      return new Options(maxEntries, wait, staleness, expiryMargin, listener);
    }

    /**
     * These options with another expiry margin.
     *
     * @param margin the margin
     * @return new options
     */
    public Options withExpiryMargin(Duration margin) {
      return new Options(maxEntries, pollWait, maxStaleness, margin, listener);
    }

    /**
     * These options telling {@code l} of every applied change.
     *
     * @param l the listener
     * @return new options
     */
    public Options withListener(TtlWatchListener l) {
      return new Options(maxEntries, pollWait, maxStaleness, expiryMargin, l);
    }
  }

  /**
   * What the cache did since it started.
   *
   * @param memoryHits gets answered from memory
   * @param loads gets that asked the cluster because the key was not held (or held expired)
   * @param notCurrent gets that asked the cluster because the cache was not current
   * @param changesApplied changes applied to held keys
   * @param resyncs times the cache dropped everything (the cluster no longer held its changes)
   * @param pollFailures watch polls that failed
   * @param entries keys held now
   * @param position the log index the cache is current at
   */
  public record Stats(long memoryHits, long loads, long notCurrent, long changesApplied,
      long resyncs, long pollFailures, long entries, long position) {}

  /** A held key: its entry, or null for a key held as absent. */
  private record Slot(Entry entry) {}

  private final TtlEntries entries;
  private final String namespace;
  private final Options options;
  private final MonotonicClock clock;
  private final Object applyLock = new Object();
  private final Thread poller;
  private final LongAdder memoryHits = new LongAdder();
  private final LongAdder loads = new LongAdder();
  private final LongAdder notCurrent = new LongAdder();
  private final LongAdder changesApplied = new LongAdder();
  private final LongAdder resyncs = new LongAdder();
  private final LongAdder pollFailures = new LongAdder();
  private final CompletableFuture<Long> current = new CompletableFuture<>();
  /** Replaced, not cleared, on a resync: a reader holding the old one reads a whole old state. */
  private volatile TtlCache<String, Slot> cache;
  /** Guarded by applyLock; −1 until the first answer. */
  private long position = -1;
  /** The send time of the newest confirmed answer applied; memory answers while it is recent. */
  private volatile long confirmedSentNanos;
  private volatile boolean confirmed;
  private volatile boolean closed;

  private NearCache(TtlEntries entries, String namespace, Options options) {
    this.entries = entries;
    this.namespace = Objects.requireNonNull(namespace, "namespace");
    this.options = Objects.requireNonNull(options, "options");
    this.clock = entries.clock();
    this.cache = newCache();
    this.poller = new Thread(this::poll, "ration-near-cache-" + namespace);
    poller.setDaemon(true);
  }

  static NearCache start(TtlEntries entries, String namespace, Options options) {
    if (namespace.isEmpty()) {
      throw new IllegalArgumentException("namespace is empty");
    }
    NearCache c = new NearCache(entries, namespace, options);
    c.poller.start();
    return c;
  }

  private TtlCache<String, Slot> newCache() {
    return TtlCache.builder().maxEntries(options.maxEntries()).policy(EvictionPolicy.LRU)
        .clock(clock).<String, Slot>build();
  }

  // ---------------------------------------------------------------- reads

  /**
   * The live entry of {@code key}: from memory when the cache is current and holds the key,
   * from the cluster otherwise (then held for the next get).
   *
   * @param key the key
   * @return the live entry, or empty
   * @throws RuntimeException the client's {@code RationException}, when the cluster had to be
   *     asked and could not answer
   */
  public Optional<Entry> get(String key) {
    Objects.requireNonNull(key, "key");
    if (closed) {
      return TtlEntries.join(entries.getAsync(namespace, key));
    }
    if (isCurrent()) {
      Optional<Slot> held = cache.get(key);
      if (held.isPresent()) {
        memoryHits.increment();
        return Optional.ofNullable(held.get().entry());
      }
      loads.increment();
    } else {
      notCurrent.increment();
    }
    return load(key);
  }

  /**
   * Whether {@link #get} answers from memory now: the last confirmed, complete answer was sent
   * within {@link Options#maxStaleness}.
   *
   * @return whether the cache is current
   */
  public boolean isCurrent() {
    return confirmed
        && clock.nanoTime() - confirmedSentNanos <= options.maxStaleness().toNanos();
  }

  /**
   * The log index the cache is current at (−1 before its first answer).
   *
   * @return the position
   */
  public long position() {
    synchronized (applyLock) {
      return position;
    }
  }

  /**
   * Waits until the cache has had its first answer.
   *
   * @param timeout how long to wait
   * @param unit its unit
   * @return the position then
   * @throws java.util.concurrent.TimeoutException if it had none in time
   * @throws InterruptedException if interrupted
   */
  public long awaitCurrent(long timeout, TimeUnit unit)
      throws java.util.concurrent.TimeoutException, InterruptedException {
    try {
      return current.get(timeout, unit);
    } catch (ExecutionException e) {
      throw new IllegalStateException("near cache of " + namespace + " closed", e.getCause());
    }
  }

  /**
   * What the cache did so far.
   *
   * @return its counters
   */
  public Stats stats() {
    return new Stats(memoryHits.sum(), loads.sum(), notCurrent.sum(), changesApplied.sum(),
        resyncs.sum(), pollFailures.sum(), cache.stats().entries(), position());
  }

  private Optional<Entry> load(String key) {
    long from;
    synchronized (applyLock) {
      from = position;
    }
    if (from < 0) {
      return TtlEntries.join(entries.getAsync(namespace, key));
    }
    WatchPoll answer = TtlEntries.join(entries.pollAsync(namespace, from, 0, List.of(key), true));
    if (!apply(answer, List.of(key))) {
      // The answer carried no entry (too many changes since the position), or the watch had
      // applied (and told) newer changes while it travelled: a read started now sees them.
      return TtlEntries.join(entries.getAsync(namespace, key));
    }
    return answer.entries().stream().filter(e -> e.key().equals(key)).findFirst();
  }

  // ---------------------------------------------------------------- the watch

  private void poll() {
    int failures = 0;
    while (!closed) {
      long from;
      synchronized (applyLock) {
        from = position;
      }
      try {
        // Changes come without a heartbeat round unless the cache's confirmation is half-way to
        // its staleness bound: then the answer is confirmed by a ReadIndex too.
        boolean confirm = !confirmed || clock.nanoTime() - confirmedSentNanos
            > options.maxStaleness().toNanos() / 2;
        WatchPoll answer = entries.pollAsync(namespace, from,
            from < 0 ? 0 : options.pollWait().toMillis(), List.of(), confirm).get();
        apply(answer, List.of());
        failures = 0;
        current.complete(position());
      } catch (InterruptedException | java.util.concurrent.CancellationException e) {
        break;
      } catch (ExecutionException e) {
        if (closed) {
          break;
        }
        pollFailures.increment();
        failures++;
        if (e.getCause() instanceof RuntimeException re && options.listener() != null) {
          tell(() -> options.listener().onError(re));
        }
        try {
          TimeUnit.MILLISECONDS.sleep(Math.min(1000, 25L << Math.min(failures, 6)));
        } catch (InterruptedException ie) {
          break;
        }
      }
    }
    current.completeExceptionally(new IllegalStateException("closed"));
  }

  /**
   * Applies an answer read at one index: its changes past the position, then (when the answer
   * is at or past the position and complete) the asked keys' entries as of its index. Returns
   * whether those entries were taken: false when they are older than what was applied.
   */
  private boolean apply(WatchPoll answer, List<String> asked) {
    TtlWatchListener l = options.listener();
    synchronized (applyLock) {
      if (answer.compacted()) {
        if (answer.fromIndex() != position) {
          return false; // sent from an older position: a newer answer already moved the cache on
        }
        // The cluster cannot say what came after the position (even below it: a position the
        // cluster never reached, as after a restore to an older backup): start again, empty.
        cache = newCache();
        position = answer.throughIndex();
        resyncs.increment();
        if (l != null) {
          tell(() -> l.onCompacted(answer.throughIndex()));
        }
      } else {
        List<Change> news = answer.changes().stream().filter(c -> c.index() > position).toList();
        for (Change c : news) {
          applyChange(c, answer);
        }
        boolean behind = answer.throughIndex() < position;
        position = Math.max(position, answer.throughIndex());
        if (!news.isEmpty() && l != null) {
          long through = position;
          tell(() -> l.onChanges(news, through));
        }
        if (behind || answer.truncated()) {
          return false; // its entries are older than what is applied, or missing
        }
      }
      for (String key : asked) {
        Optional<Entry> e = answer.entries().stream().filter(x -> x.key().equals(key)).findFirst();
        hold(key, e.orElse(null), answer);
      }
      if (answer.confirmed() && !answer.truncated()) {
        confirmedSentNanos = Math.max(confirmed ? confirmedSentNanos : Long.MIN_VALUE,
            answer.sentNanos());
        confirmed = true;
      }
      return true;
    }
  }

  /** Under applyLock: a change to a held key replaces what is held; others are ignored. */
  private void applyChange(Change c, WatchPoll answer) {
    if (cache.peek(c.key()).isEmpty()) {
      return; // not held: a later get loads it as of a newer index
    }
    changesApplied.increment();
    hold(c.key(), c.entry().orElse(null), answer);
  }

  /** Under applyLock: holds {@code entry} (null: absent) as {@code answer} told it. */
  private void hold(String key, Entry entry, WatchPoll answer) {
    if (entry == null) {
      cache.put(key, new Slot(null));
      return;
    }
    if (entry.expiresAt().millis() == Long.MAX_VALUE) {
      cache.put(key, new Slot(entry));
      return;
    }
    // Ledger time at a later client instant t is at most readAt + (t − sent) × rate: the
    // answer's ledger time was read after it was sent.
    double servableMillis = (entry.expiresAt().millis() - answer.readAtMillis()
        - options.expiryMargin().toMillis()) / CLOCK_RATE_BOUND;
    if (servableMillis <= 0) {
      cache.delete(key);
      return;
    }
    long until = answer.sentNanos() + (long) Math.min(servableMillis * 1e6, Long.MAX_VALUE / 4.0);
    cache.putUntil(key, new Slot(entry), new MonotonicInstant(until));
  }

  private static void tell(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      // A listener's failure must not stop the cache from applying changes.
    }
  }

  /** Stops the watch; later gets are plain reads through the cluster, and nothing is held. */
  @Override
  public void close() {
    closed = true;
    confirmed = false;
    poller.interrupt();
    cache = newCache();
    try {
      poller.join(options.pollWait().toMillis() + 5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
