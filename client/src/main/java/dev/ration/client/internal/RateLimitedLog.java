package dev.ration.client.internal;

import org.slf4j.Logger;

/**
 * One kind of log line that may recur at request or retry rate (a lease lost, an acquire
 * refused, a move to another server), written at most once per interval; the next line
 * written says how many were left out. Each call may choose its level (a routine move is a
 * debug line, a lost connection a warning); the interval is shared by every level, so a burst
 * of either writes one line. Thread-safe; the clock is the caller's, so tests drive it.
 */
public final class RateLimitedLog {
  /** The logging level of a line. */
  public enum Level { DEBUG, INFO, WARN }

  private final Logger log;
  private final Level level;
  private final long intervalNanos;
  private long lastNanos;
  private boolean written;
  private long suppressed;
  private long writtenTotal;

  /**
   * @param log where lines go
   * @param level the level of lines logged without one
   * @param intervalNanos the least time between two lines
   */
  public RateLimitedLog(Logger log, Level level, long intervalNanos) {
    if (intervalNanos <= 0) {
      throw new IllegalArgumentException("intervalNanos " + intervalNanos + " must be > 0");
    }
    this.log = log;
    this.level = level;
    this.intervalNanos = intervalNanos;
  }

  /** {@link #log(long, Level, String, Object...)} at this log's own level. */
  public boolean log(long nowNanos, String message, Object... args) {
    return log(nowNanos, level, message, args);
  }

  /**
   * Writes {@code message} (an SLF4J format with {@code args}) at {@code lineLevel} unless a
   * line was written less than the interval before {@code nowNanos}. Returns whether it was
   * written.
   */
  public synchronized boolean log(long nowNanos, Level lineLevel, String message, Object... args) {
    if (written && nowNanos - lastNanos < intervalNanos) {
      suppressed++;
      return false;
    }
    String line = suppressed == 0 ? message : message + " (" + suppressed + " similar lines left out)";
    switch (lineLevel) {
      case WARN -> log.warn(line, args);
      case INFO -> log.info(line, args);
      case DEBUG -> log.debug(line, args);
    }
    written = true;
    writtenTotal++;
    lastNanos = nowNanos;
    suppressed = 0;
    return true;
  }

  /** Lines written so far. */
  public synchronized long written() {
    return writtenTotal;
  }

  /** Lines left out since the last one written. */
  public synchronized long suppressed() {
    return suppressed;
  }
}
