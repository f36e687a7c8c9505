package dev.ration.server.consensus;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The leader's log clock (docs/ARCHITECTURE.md, "Time"): the time stamped on every batch this node proposes.
 *
 * <p>When this node becomes leader it starts from the ledger's clock (the largest time in the
 * applied log) and advances it by its own monotonic clock, so a wall-clock step on any node never
 * moves log time; only clock rate matters. {@link #now()} never decreases while a term lasts.
 *
 * <p>Thread-safe (synchronized): read by the proposer, the ticker and readers.
 */
final class LogClock {
  private final LongSupplier nanoClock;
  private boolean running;
  private long baseMillis;
  private long startNanos;
  private long lastMillis;

  LogClock(LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
  }

  /**
   * Start a leadership term at {@code ledgerNowMillis}, which the caller reads after the state has
   * applied every entry up to the term's first one, so log time continues from the log.
   */
  synchronized void start(long ledgerNowMillis) {
    running = true;
    baseMillis = ledgerNowMillis;
    startNanos = nanoClock.getAsLong();
    lastMillis = ledgerNowMillis;
  }

  synchronized void stop() {
    running = false;
  }

  synchronized boolean running() {
    return running;
  }

  /** Current log time; only meaningful while {@link #running()}. Monotone. */
  synchronized long now() {
    if (!running) {
      throw new IllegalStateException("log clock is not running (this node is not a ready leader)");
    }
    long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(nanoClock.getAsLong() - startNanos);
    lastMillis = Math.max(lastMillis, baseMillis + Math.max(0, elapsedMillis));
    return lastMillis;
  }
}
