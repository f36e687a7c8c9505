package dev.ration.client.limiter;

import org.slf4j.Logger;

/**
 * One kind of log line that may recur at request or retry rate (a lease lost, an acquire
 * refused, a connection lost), written at most once per interval; the next line written says
 * how many were left out. Thread-safe; the clock is the caller's.
 */
final class RateLimitedLog {
  /** The logging level of a line. */
  enum Level { INFO, WARN }

  private final Logger log;
  private final Level level;
  private final long intervalNanos;
  private long lastNanos;
  private boolean written;
  private long suppressed;
  private long writtenTotal;

  RateLimitedLog(Logger log, Level level, long intervalNanos) {
    if (intervalNanos <= 0) {
      throw new IllegalArgumentException("intervalNanos " + intervalNanos + " must be > 0");
    }
    this.log = log;
    this.level = level;
    this.intervalNanos = intervalNanos;
  }

  /**
   * Writes {@code message} (an SLF4J format with {@code args}) unless a line was written less
   * than the interval before {@code nowNanos}. Returns whether it was written.
   */
  synchronized boolean log(long nowNanos, String message, Object... args) {
    if (written && nowNanos - lastNanos < intervalNanos) {
      suppressed++;
      return false;
    }
    String line = suppressed == 0 ? message : message + " (" + suppressed + " similar lines left out)";
    if (level == Level.WARN) {
      log.warn(line, args);
    } else {
      log.info(line, args);
    }
    written = true;
    writtenTotal++;
    lastNanos = nowNanos;
    suppressed = 0;
    return true;
  }

  /** Lines written so far. */
  synchronized long written() {
    return writtenTotal;
  }

  /** Lines left out since the last one written. */
  synchronized long suppressed() {
    return suppressed;
  }
}
