package dev.ration.wire.quota;

import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.shape.Shape;

/**
 * A difference reconciliation found. For a reservation: {@code expected} is its settled
 * quantity, {@code recorded} the sum of the usage events that refer to it. For a budget ({@code
 * reservationId} is its id: one id space): {@code expected} is the spend its holder reported,
 * {@code recorded} the sum of its spend events and of other usage recorded against its id. For an aggregate
 * bucket: {@code expected} is the sum of the log's events in it, {@code recorded} the stored
 * aggregate. {@code compensationSequence} is the log record that repaired it (0 = not repaired).
 */
public record Drift(
    String kind,
    String scope,
    String resource,
    long reservationId,
    long bucketStartMillis,
    long expected,
    long recorded,
    long compensationSequence) {
  public static final String RESERVATION = "reservation";
  public static final String AGGREGATE = "aggregate";
  public static final String BUDGET = "budget";

  /** Its one encoding: a reconciliation's answer carries it, and so does its stored result. */
  public static final Shape<Drift> SHAPE =
      Shape.of(
          Drift.class,
          str("kind", Drift::kind),
          str("scope", Drift::scope),
          str("resource", Drift::resource),
          i64("reservationId", Drift::reservationId),
          i64("bucketStartMillis", Drift::bucketStartMillis),
          i64("expected", Drift::expected),
          i64("recorded", Drift::recorded),
          i64("compensationSequence", Drift::compensationSequence));
}
