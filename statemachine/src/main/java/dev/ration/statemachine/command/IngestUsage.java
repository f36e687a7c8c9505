package dev.ration.statemachine.command;

import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.shape.Shape;

/**
 * A service's own usage event (e.g. storage used), appended to the usage log unless an event
 * with the same id was seen within the retention window. Aggregated by {@code eventTimeMillis}.
 * A negative quantity is allowed only for allocation resources (it releases allocation).
 * {@code reservationId} (0 = none) ties the event to a reservation for reconciliation.
 */
public record IngestUsage(
    String eventId,
    long eventTimeMillis,
    String scope,
    String resource,
    long quantity,
    String unit,
    long reservationId)
    implements QuotaCommand {
  public static final int CODE = 44;

  /** Its fields in the log, in this order after the command code. */
  public static final Shape<IngestUsage> SHAPE =
      Shape.of(
          IngestUsage.class,
          str("eventId", IngestUsage::eventId),
          i64("eventTimeMillis", IngestUsage::eventTimeMillis),
          str("scope", IngestUsage::scope),
          str("resource", IngestUsage::resource),
          i64("quantity", IngestUsage::quantity),
          str("unit", IngestUsage::unit),
          i64("reservationId", IngestUsage::reservationId));

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(QuotaCommand.Handler<R> handler) {
    return handler.ingest(this);
  }
}
