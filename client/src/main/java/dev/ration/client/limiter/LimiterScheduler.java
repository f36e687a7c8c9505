package dev.ration.client.limiter;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Where a {@link RateLimiter} runs its lifecycle (acquire, renew, expiry, and the handling of
 * every answer). Production: the client's event loop via {@link #of}; tests and the simulation:
 * {@link ManualScheduler}. The limiter serializes its own
 * control path, so any executor (single- or multi-threaded) works.
 */
@FunctionalInterface
public interface LimiterScheduler {
  /**
   * Runs {@code task} once after {@code delayNanos} (at once if {@code <= 0}).
   *
   * @param task what to run
   * @param delayNanos after how long, in nanoseconds of the limiter's clock
   * @return a handle to cancel it
   */
  Cancellable schedule(Runnable task, long delayNanos);

  /** A scheduled task that may be cancelled; cancelling a task that ran is a no-op. */
  @FunctionalInterface
  interface Cancellable {
    /** Cancels the task if it has not run. */
    void cancel();
  }

  /**
   * A scheduler running tasks on {@code executor}.
   *
   * @param executor the executor (a Netty event loop is one)
   * @return the scheduler
   */
  static LimiterScheduler of(ScheduledExecutorService executor) {
    return (task, delayNanos) -> {
      ScheduledFuture<?> f = executor.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
      return () -> f.cancel(false);
    };
  }
}
