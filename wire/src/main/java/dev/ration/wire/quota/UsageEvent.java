package dev.ration.wire.quota;

import static dev.ration.wire.shape.Fields.code;
import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.EventType;
import dev.ration.wire.shape.Shape;

/**
 * One record of the replicated, append-only usage log.
 *
 * @param sequence position in the log (from the ledger's counter, starts at 1)
 * @param eventId unique id: {@code res:<reservation>:<resource>} for reservation settlements,
 *     {@code comp:<sequence>} for compensations, {@code alert:…} for alerts, the service's own id
 *     for ingested events; duplicates are dropped by id within the retention window
 * @param eventTimeMillis when the usage happened (aggregates are by event time)
 * @param recordedAtMillis ledger time at which the log got it
 * @param reservationId the reservation it settles or refers to, 0 if none
 * @param overage the billable part of {@code quantity} (beyond a hard limit)
 */
public record UsageEvent(
    long sequence,
    String eventId,
    EventType type,
    long eventTimeMillis,
    long recordedAtMillis,
    String scope,
    String resource,
    long quantity,
    String unit,
    long reservationId,
    long overage) {
  /** Its one encoding: the protocol's answers carry it in this field order. */
  public static final Shape<UsageEvent> SHAPE =
      Shape.of(
          UsageEvent.class,
          i64("sequence", UsageEvent::sequence),
          str("eventId", UsageEvent::eventId),
          code("type", UsageEvent::type, EventType::fromCode, EventType::code),
          i64("eventTimeMillis", UsageEvent::eventTimeMillis),
          i64("recordedAtMillis", UsageEvent::recordedAtMillis),
          str("scope", UsageEvent::scope),
          str("resource", UsageEvent::resource),
          i64("quantity", UsageEvent::quantity),
          str("unit", UsageEvent::unit),
          i64("reservationId", UsageEvent::reservationId),
          i64("overage", UsageEvent::overage));
}
