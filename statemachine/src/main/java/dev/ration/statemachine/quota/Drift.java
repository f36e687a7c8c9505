package dev.ration.statemachine.quota;

/**
 * A difference reconciliation found. For a reservation: {@code expected} is its settled
 * quantity, {@code recorded} the sum of the usage events that refer to it. For an aggregate
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
}
