package dev.ration.wire.quota;

/**
 * Usage of (scope, resource) in one hour bucket by event time, counted at every level of the
 * event's scope path (an event of {@code org/t/p} counts for {@code org/t} and {@code org} too).
 */
public record Aggregate(
    String scope, String resource, long bucketStartMillis, long quantity, long events) {
  public static final long BUCKET_MILLIS = 3_600_000L;

  public static long bucketOf(long eventTimeMillis) {
    return Math.floorDiv(eventTimeMillis, BUCKET_MILLIS) * BUCKET_MILLIS;
  }
}
