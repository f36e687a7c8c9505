package dev.ration.client.ttl;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A running watch of one namespace ({@link TtlEntries#watch}): one thread that polls the
 * cluster and tells its listener. Close it to stop; the position it reached lets another watch
 * resume after it.
 */
public final class TtlWatch implements AutoCloseable {
  /** The longest pause after failed polls. */
  private static final long MAX_PAUSE_MILLIS = 1000;

  private final TtlEntries entries;
  private final String namespace;
  private final long waitMillis;
  private final TtlWatchListener listener;
  private final CompletableFuture<Long> started = new CompletableFuture<>();
  private final Thread thread;
  private volatile long position;
  private volatile boolean closed;
  private volatile Future<WatchPoll> inFlight;
  private volatile RuntimeException listenerFailure;

  private TtlWatch(TtlEntries entries, String namespace, long fromIndex, long waitMillis,
      TtlWatchListener listener) {
    this.entries = entries;
    this.namespace = java.util.Objects.requireNonNull(namespace, "namespace");
    this.waitMillis = waitMillis;
    this.listener = java.util.Objects.requireNonNull(listener, "listener");
    this.position = fromIndex;
    this.thread = new Thread(this::run, "ration-ttl-watch-" + namespace);
    thread.setDaemon(true);
  }

  static TtlWatch start(TtlEntries entries, String namespace, long fromIndex, long waitMillis,
      TtlWatchListener listener) {
    TtlWatch w = new TtlWatch(entries, namespace, fromIndex, waitMillis, listener);
    w.thread.start();
    return w;
  }

  private void run() {
    int failures = 0;
    while (!closed) {
      WatchPoll poll;
      try {
        CompletableFuture<WatchPoll> f =
            entries.pollAsync(namespace, position, position < 0 ? 0 : waitMillis, List.of(), false);
        inFlight = f;
        poll = f.get();
        failures = 0;
      } catch (InterruptedException | java.util.concurrent.CancellationException e) {
        break; // close(): it interrupts this thread and cancels the poll in flight
      } catch (ExecutionException e) {
        if (closed) {
          break;
        }
        failures++;
        if (e.getCause() instanceof RuntimeException re) {
          tell(() -> listener.onError(re));
        }
        if (!pause(Math.min(MAX_PAUSE_MILLIS, 25L << Math.min(failures, 6)))) {
          break;
        }
        continue;
      }
      if (poll.compacted()) {
        position = poll.throughIndex();
        tell(() -> listener.onCompacted(poll.throughIndex()));
      } else {
        long through = Math.max(position, poll.throughIndex());
        List<Change> news = poll.changes().stream().filter(c -> c.index() > position).toList();
        if (!news.isEmpty()) {
          tell(() -> listener.onChanges(news, through));
        }
        position = through;
      }
      started.complete(position);
    }
    started.completeExceptionally(new IllegalStateException("watch of " + namespace + " closed"));
  }

  private void tell(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      // The listener's bug must not end the watch, nor be lost: kept for listenerFailure().
      listenerFailure = e;
    }
  }

  private boolean pause(long millis) {
    try {
      TimeUnit.MILLISECONDS.sleep(millis);
      return true;
    } catch (InterruptedException e) {
      return false;
    }
  }

  /**
   * The log index through which every change was told (−1 before the first answer of a watch
   * started from now): a new watch from it resumes where this one is.
   *
   * @return the position
   */
  public long position() {
    return position;
  }

  /**
   * Completes with the position once the first poll was answered.
   *
   * @return the first answered position
   */
  public CompletableFuture<Long> started() {
    return started.copy();
  }

  /**
   * The last exception the listener threw, if any (the watch goes on after one).
   *
   * @return it, or null
   */
  public RuntimeException listenerFailure() {
    return listenerFailure;
  }

  /**
   * Whether the watch still runs.
   *
   * @return false once closed
   */
  public boolean isRunning() {
    return !closed && thread.isAlive();
  }

  /** Stops the watch and waits (up to a poll's wait and five seconds) for its thread to end. */
  @Override
  public void close() {
    closed = true;
    thread.interrupt();
    Future<WatchPoll> f = inFlight;
    if (f != null) {
      f.cancel(false);
    }
    try {
      thread.join(TimeUnit.MILLISECONDS.toMillis(waitMillis) + 5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Waits for the first answered poll.
   *
   * @param timeout how long to wait
   * @param unit its unit
   * @return the position it reached
   * @throws TimeoutException if no poll was answered in time
   * @throws InterruptedException if interrupted
   */
  public long awaitStarted(long timeout, TimeUnit unit) throws TimeoutException, InterruptedException {
    try {
      return started.get(timeout, unit);
    } catch (ExecutionException e) {
      throw new IllegalStateException("watch of " + namespace + " ended before its first answer",
          e.getCause());
    }
  }
}
