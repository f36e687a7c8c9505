package dev.ration.wire.quota;

import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.shape.Shape;

/**
 * Usage of (scope, resource) in one hour bucket by event time, counted at every level of the
 * event's scope path (an event of {@code org/t/p} counts for {@code org/t} and {@code org} too).
 */
public record Aggregate(
    String scope, String resource, long bucketStartMillis, long quantity, long events) {
  /** Its one encoding: the protocol's answers carry it in this field order. */
  public static final Shape<Aggregate> SHAPE =
      Shape.of(
          Aggregate.class,
          str("scope", Aggregate::scope),
          str("resource", Aggregate::resource),
          i64("bucketStartMillis", Aggregate::bucketStartMillis),
          i64("quantity", Aggregate::quantity),
          i64("events", Aggregate::events));

  public static final long BUCKET_MILLIS = 3_600_000L;

  public static long bucketOf(long eventTimeMillis) {
    return Math.floorDiv(eventTimeMillis, BUCKET_MILLIS) * BUCKET_MILLIS;
  }
}
