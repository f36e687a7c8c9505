package dev.ration.client;

import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * The log of a client's moves from one server to another. A cluster without a leader, or a
 * client pointed at a dead address, makes a move per retry, which is many per second; so a
 * line is written at most once per interval, and the next line written counts the moves left
 * out. Not thread-safe: the client calls it holding its own lock.
 */
final class ReconnectLog {
  private final Logger log;
  private final long intervalNanos;
  private final LongSupplier nanoClock;
  private boolean logged;
  private long loggedAtNanos;
  private long notLogged;

  /**
   * @param log where lines go
   * @param intervalNanos the least time between two lines
   * @param nanoClock a monotonic clock, in nanoseconds
   */
  ReconnectLog(Logger log, long intervalNanos, LongSupplier nanoClock) {
    if (intervalNanos <= 0) {
      throw new IllegalArgumentException("intervalNanos " + intervalNanos + " must be > 0");
    }
    this.log = log;
    this.intervalNanos = intervalNanos;
    this.nanoClock = nanoClock;
  }

  /**
   * Logs a move from {@code from} to {@code to} (a warning, or a debug line for the routine
   * move to a named leader) unless a line was written less than the interval ago.
   *
   * @param warn whether the move is worth a warning
   * @param format an SLF4J format with two arguments, {@code from} and {@code to}
   * @return whether a line was written
   */
  boolean moved(boolean warn, String format, String from, String to) {
    long now = nanoClock.getAsLong();
    if (logged && now - loggedAtNanos < intervalNanos) {
      notLogged++;
      return false;
    }
    String suffix = notLogged == 0 ? "" : " (" + notLogged + " earlier moves not logged)";
    if (warn) {
      log.warn(format + suffix, from, to);
    } else {
      log.debug(format + suffix, from, to);
    }
    logged = true;
    loggedAtNanos = now;
    notLogged = 0;
    return true;
  }
}
