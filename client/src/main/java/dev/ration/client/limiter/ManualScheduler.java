package dev.ration.client.limiter;

import java.time.Duration;
import java.util.Optional;
import java.util.PriorityQueue;

/**
 * A deterministic clock and scheduler for tests and the simulation: time moves only when
 * {@link #advanceTo} or {@link #advance} is called, and due tasks run on the calling thread in
 * (time, scheduling order). A limiter given this scheduler ({@link LimiterOptions.Builder#manual})
 * also reads its clock from it. Times are {@link Duration}s since the clock's origin, the way a
 * monotonic clock has no calendar date.
 *
 * <p>Thread-safe (a monitor guards the queue and the clock); tasks run outside the monitor so
 * they may schedule more tasks. A task scheduled for now or the past runs at the current time
 * on the next {@link #runDue}/{@link #advance}.
 */
public final class ManualScheduler implements LimiterScheduler {
  private final PriorityQueue<Task> queue = new PriorityQueue<>();
  private long nowNanos;
  private long nextSeq;

  private static final class Task implements Comparable<Task>, Cancellable {
    final long atNanos;
    final long seq;
    final Runnable body;
    volatile boolean cancelled;

    Task(long atNanos, long seq, Runnable body) {
      this.atNanos = atNanos;
      this.seq = seq;
      this.body = body;
    }

    @Override
    public int compareTo(Task o) {
      int c = Long.compare(atNanos, o.atNanos);
      return c != 0 ? c : Long.compare(seq, o.seq);
    }

    @Override
    public void cancel() {
      cancelled = true;
    }
  }

  /** A manual clock and scheduler starting at its origin (time zero). */
  public ManualScheduler() {
    this(Duration.ZERO);
  }

  /**
   * A manual clock and scheduler starting at {@code start} after its origin.
   *
   * @param start the clock's first time, not negative
   */
  public ManualScheduler(Duration start) {
    if (start == null || start.isNegative()) {
      throw new IllegalArgumentException("start must be zero or positive, was " + start);
    }
    this.nowNanos = start.toNanos();
  }

  /**
   * The manual clock's time.
   *
   * @return the time since the clock's origin
   */
  public synchronized Duration now() {
    return Duration.ofNanos(nowNanos);
  }

  /** The clock a limiter on this scheduler reads, without allocating. */
  synchronized long nanoTime() {
    return nowNanos;
  }

  @Override
  public synchronized Cancellable schedule(Runnable task, Duration delay) {
    long d = delay.isNegative() ? 0 : delay.toNanos();
    Task t = new Task(nowNanos + d, nextSeq++, task);
    queue.add(t);
    return t;
  }

  /**
   * Runs every task due at the current time (including ones they schedule for now).
   *
   * @return how many tasks ran
   */
  public int runDue() {
    return advanceTo(nanoTime());
  }

  /**
   * Moves the clock forward by {@code delta}, running tasks as their times come.
   *
   * @param delta not negative
   * @return how many tasks ran
   */
  public int advance(Duration delta) {
    if (delta.isNegative()) {
      throw new IllegalArgumentException("delta " + delta + " < 0");
    }
    return advanceTo(nanoTime() + delta.toNanos());
  }

  /**
   * Moves time to {@code target}, stopping at each due task's time to run it. Bounded: at most
   * 1,000,000 tasks per call (a runaway loop is a bug).
   *
   * @param target the time to move to, since the clock's origin; not before {@link #now()}
   * @return how many tasks ran
   */
  public int advanceTo(Duration target) {
    return advanceTo(target.toNanos());
  }

  private int advanceTo(long targetNanos) {
    int ran = 0;
    while (true) {
      Task t;
      synchronized (this) {
        if (targetNanos < nowNanos) {
          throw new IllegalArgumentException("target " + Duration.ofNanos(targetNanos)
              + " before now " + Duration.ofNanos(nowNanos));
        }
        t = queue.peek();
        if (t == null || t.atNanos > targetNanos) {
          nowNanos = targetNanos;
          return ran;
        }
        queue.poll();
        if (t.atNanos > nowNanos) {
          nowNanos = t.atNanos;
        }
      }
      if (!t.cancelled) {
        t.body.run();
        if (++ran > 1_000_000) {
          throw new IllegalStateException("more than 1,000,000 tasks in one advance to "
              + Duration.ofNanos(targetNanos));
        }
      }
    }
  }

  /**
   * Tasks waiting (cancelled ones included until their time comes).
   *
   * @return tasks scheduled and not yet run
   */
  public synchronized int pending() {
    return queue.size();
  }

  /**
   * Time of the earliest pending task.
   *
   * @return the time of the next task since the clock's origin, or empty when none is pending
   */
  public synchronized Optional<Duration> nextTaskAt() {
    Task t = queue.peek();
    return t == null ? Optional.empty() : Optional.of(Duration.ofNanos(t.atNanos));
  }
}
