package dev.ration.client.limiter;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Where a {@link RateLimiter} runs its lifecycle (acquire, renew, expiry, and the handling of
 * every answer). Production: the client's event loop via {@link #of}; tests and the simulation:
 * {@link ManualScheduler}, which is also their clock. The limiter serializes its own control
 * path, so any executor (single- or multi-threaded) works.
 */
@FunctionalInterface
public interface LimiterScheduler {
  /**
   * Runs {@code task} once after {@code delay} (at once if zero or negative).
   *
   * @param task what to run
   * @param delay after how long, on the limiter's monotonic clock
   * @return a handle to cancel it
   */
  Cancellable schedule(Runnable task, Duration delay);

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
    return (task, delay) -> {
      long nanos = delay.isNegative() ? 0 : saturatedNanos(delay);
      // A scheduled task's exception would only fail its future, which nobody reads: a limiter
      // whose control step failed would stop renewing without a word. Logged instead.
      ScheduledFuture<?> f = executor.schedule(() -> {
        try {
          task.run();
        } catch (RuntimeException | Error e) {
          org.slf4j.LoggerFactory.getLogger(LimiterScheduler.class)
              .error("a limiter task failed: {}", task, e);
          throw e;
        }
      }, nanos, TimeUnit.NANOSECONDS);
      return () -> f.cancel(false);
    };
  }

  private static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }
}
