package dev.ration.client.pool;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;

/**
 * The cooperative stop signal a running job receives. The pool cancels it when the job is
 * cancelled, when its deadline passes, when the slot lease is about to end, or when shutdown
 * gives up waiting. A job checks {@link #isCancelled()} between steps and registers a callback
 * ({@link #onCancel}) that aborts its I/O (closes a socket, cancels an HTTP exchange, cancels a
 * future). Nothing interrupts the worker thread: a job blocked in I/O that ignores the token runs
 * to its end (see docs/POOL.md).
 *
 * <p>Thread-safe. A callback runs exactly once: on the cancelling thread, or at once on the
 * registering thread if the token is already cancelled. A callback that throws does not stop
 * the others; its exception is suppressed into the one rethrown after all ran.
 */
public final class CancellationToken {
  /** Why the pool asked the job to stop. */
  public enum Reason {
    /** The job was cancelled through its handle or the pool. */
    CANCELLED,
    /** The job's deadline is near. */
    DEADLINE,
    /** The pool's slots (its lease) are ending. */
    LEASE_ENDING,
    /** The pool is shutting down. */
    SHUTDOWN
  }

  private final Object lock = new Object();
  private List<Runnable> callbacks = new ArrayList<>(0);
  private volatile Reason reason;

  CancellationToken() {
  }

  /**
   * Whether the pool asked the job to stop.
   *
   * @return true once cancelled
   */
  public boolean isCancelled() {
    return reason != null;
  }

  /**
   * Why it was cancelled, if it was.
   *
   * @return why, or empty while not cancelled
   */
  public Optional<Reason> reason() {
    return Optional.ofNullable(reason);
  }

  /** Throws {@link CancellationException} if cancelled: a convenient check between steps. */
  public void throwIfCancelled() {
    Reason r = reason;
    if (r != null) {
      throw new CancellationException("cancelled: " + r);
    }
  }

  /**
   * Runs {@code callback} when the token is cancelled (at once if it already is). Returns a
   * registration whose {@code close()} removes the callback, so a job that finished its I/O
   * does not leave it behind.
   *
   * @param callback run once on cancellation
   * @return the registration; closing it removes the callback
   */
  public Registration onCancel(Runnable callback) {
    synchronized (lock) {
      if (reason == null) {
        callbacks.add(callback);
        return () -> {
          synchronized (lock) {
            if (callbacks != null) {
              callbacks.remove(callback);
            }
          }
        };
      }
    }
    callback.run();
    return () -> { };
  }

  /** Cancels with {@code why}; false if it was already cancelled (the first reason stays). */
  boolean cancel(Reason why) {
    List<Runnable> toRun;
    synchronized (lock) {
      if (reason != null) {
        return false;
      }
      reason = why;
      toRun = callbacks;
      callbacks = null;
    }
    RuntimeException first = null;
    for (Runnable r : toRun) {
      try {
        r.run();
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
    return true;
  }

  /** A registered callback; closing it unregisters it. */
  @FunctionalInterface
  public interface Registration extends AutoCloseable {
    @Override
    void close();
  }
}
