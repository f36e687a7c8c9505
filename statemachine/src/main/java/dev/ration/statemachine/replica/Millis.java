package dev.ration.statemachine.replica;

/**
 * Saturating arithmetic on ledger times and durations. A due time computed from a huge TTL or
 * lease duration must pin at Long.MAX_VALUE ("never"), not wrap around into the past, where it
 * would expire at once on every replica.
 */
public final class Millis {
  private Millis() {}

  /** {@code a + b}, saturated at Long.MAX_VALUE and Long.MIN_VALUE instead of wrapping. */
  public static long plus(long a, long b) {
    long sum = a + b;
    if (((a ^ sum) & (b ^ sum)) < 0) {
      return sum < 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
    }
    return sum;
  }

  /** {@code a - b}, saturated at Long.MAX_VALUE and Long.MIN_VALUE instead of wrapping. */
  public static long minus(long a, long b) {
    long difference = a - b;
    if (((a ^ b) & (a ^ difference)) < 0) {
      return difference < 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
    }
    return difference;
  }
}
