package dev.ration.client.time;

import java.time.Duration;

/**
 * A point in a cluster's ledger time: milliseconds of the Raft log's clock, which the leader
 * advances with its monotonic clock and which continues from the log after a failover
 * (docs/ARCHITECTURE.md, "Time"). It is not wall-clock time and has no calendar date, so it is
 * not an {@link java.time.Instant}: compare two ledger times of the same cluster, or take the
 * {@link Duration} between them ({@link #until}).
 *
 * <p>Immutable; ordered by time; {@link #NEVER} is later than every other point.
 *
 * @param millis milliseconds since the ledger's origin; {@code Long.MAX_VALUE} for {@link #NEVER}
 */
public record LedgerTime(long millis) implements Comparable<LedgerTime> {
  /** The expiry of something that never expires. */
  public static final LedgerTime NEVER = new LedgerTime(Long.MAX_VALUE);

  /**
   * A ledger time.
   *
   * @param millis milliseconds since the ledger's origin, not negative
   * @throws IllegalArgumentException if {@code millis} is negative
   */
  public LedgerTime {
    if (millis < 0) {
      throw new IllegalArgumentException("ledger time must not be negative: " + millis);
    }
  }

  /**
   * The ledger time of {@code millis}.
   *
   * @param millis milliseconds since the ledger's origin, not negative
   * @return the point
   */
  public static LedgerTime ofMillis(long millis) {
    return millis == Long.MAX_VALUE ? NEVER : new LedgerTime(millis);
  }

  /**
   * Whether this is {@link #NEVER}.
   *
   * @return true for the point after every other
   */
  public boolean isNever() {
    return millis == Long.MAX_VALUE;
  }

  /**
   * The time from this point to {@code later}; negative if {@code later} is earlier.
   *
   * @param later another point of the same cluster's ledger time, not {@link #NEVER}
   * @return {@code later - this}
   * @throws IllegalArgumentException if either point is {@link #NEVER}
   */
  public Duration until(LedgerTime later) {
    if (isNever() || later.isNever()) {
      throw new IllegalArgumentException("no finite duration to or from NEVER");
    }
    return Duration.ofMillis(later.millis - millis);
  }

  @Override
  public int compareTo(LedgerTime other) {
    return Long.compare(millis, other.millis);
  }

  @Override
  public String toString() {
    return isNever() ? "never" : millis + "ms";
  }
}
