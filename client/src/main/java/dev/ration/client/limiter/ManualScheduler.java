package dev.ration.client.limiter;

import java.util.PriorityQueue;

/**
 * A deterministic clock and scheduler for tests and the simulation: time moves only when
 * {@link #advanceTo} or {@link #advance} is called, and due tasks run on the calling thread in
 * (time, scheduling order). Pass {@link #nanoTime} as the limiter's clock.
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

  /**
   * A manual clock and scheduler starting at {@code startNanos}.
   *
   * @param startNanos the clock's first time
   */
  public ManualScheduler(long startNanos) {
    this.nowNanos = startNanos;
  }

  /**
   * The manual clock.
   *
   * @return its time, in nanoseconds
   */
  public synchronized long nanoTime() {
    return nowNanos;
  }

  @Override
  public synchronized Cancellable schedule(Runnable task, long delayNanos) {
    Task t = new Task(nowNanos + Math.max(0, delayNanos), nextSeq++, task);
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
   * Moves the clock forward by {@code deltaNanos}, running tasks as their times come.
   *
   * @param deltaNanos not negative
   * @return how many tasks ran
   */
  public int advance(long deltaNanos) {
    if (deltaNanos < 0) {
      throw new IllegalArgumentException("deltaNanos " + deltaNanos + " < 0");
    }
    return advanceTo(nanoTime() + deltaNanos);
  }

  /**
   * Moves time to {@code targetNanos}, stopping at each due task's time to run it. Returns the
   * number of tasks run. Bounded: at most 1,000,000 tasks per call (a runaway loop is a bug).
   *
   * @param targetNanos the time to move to
   * @return how many tasks ran
   */
  public int advanceTo(long targetNanos) {
    int ran = 0;
    while (true) {
      Task t;
      synchronized (this) {
        if (targetNanos < nowNanos) {
          throw new IllegalArgumentException("target " + targetNanos + " before now " + nowNanos);
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
          throw new IllegalStateException("more than 1,000,000 tasks in one advance to " + targetNanos);
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
   * Time of the earliest pending task, or {@code Long.MAX_VALUE} when none.
   *
   * @return the time of the next task
   */
  public synchronized long nextTaskNanos() {
    Task t = queue.peek();
    return t == null ? Long.MAX_VALUE : t.atNanos;
  }
}
