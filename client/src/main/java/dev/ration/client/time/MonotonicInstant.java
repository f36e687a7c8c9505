package dev.ration.client.time;

import java.time.Duration;

/**
 * A reading of a {@link MonotonicClock}, and the instants computed from one: a deadline or an
 * expiry on that clock. Like the clock's readings it means something only next to other readings
 * of the same clock, so it is not an {@link java.time.Instant}.
 *
 * <p>Immutable; ordered by time. {@link #plus} saturates at {@code Long.MAX_VALUE} and
 * {@code Long.MIN_VALUE} instead of wrapping, so a long duration added to a reading never lands
 * in the past.
 *
 * @param nanos the clock's nanoseconds since its origin
 */
public record MonotonicInstant(long nanos) implements Comparable<MonotonicInstant> {
  /**
   * The current reading of {@code clock}.
   *
   * @param clock the clock
   * @return now, on that clock
   */
  public static MonotonicInstant now(MonotonicClock clock) {
    return new MonotonicInstant(clock.nanoTime());
  }

  /**
   * This instant moved by {@code duration}, saturating at the ends of {@code long}.
   *
   * @param duration how far to move, negative for earlier
   * @return the instant {@code duration} later
   */
  public MonotonicInstant plus(Duration duration) {
    long delta;
    try {
      delta = duration.toNanos();
    } catch (ArithmeticException tooLong) {
      return new MonotonicInstant(duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE);
    }
    long sum = nanos + delta;
    // Overflow happened iff both operands have the sign the sum lacks.
    if (((nanos ^ sum) & (delta ^ sum)) < 0) {
      sum = delta < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return new MonotonicInstant(sum);
  }

  @Override
  public int compareTo(MonotonicInstant other) {
    return Long.compare(nanos, other.nanos);
  }
}
