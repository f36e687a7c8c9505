package dev.ration.client.pool;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock that moves only when a test advances it. Thread-safe. */
final class ManualClock extends Clock {
  private volatile Instant now;

  ManualClock(Instant start) {
    this.now = start;
  }

  synchronized void advance(Duration d) {
    now = now.plus(d);
  }

  @Override
  public Instant instant() {
    return now;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("a manual clock stays in UTC");
  }
}
