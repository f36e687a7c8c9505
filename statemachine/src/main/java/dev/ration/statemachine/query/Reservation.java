package dev.ration.statemachine.query;

import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.list16;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.shape.Shape;

import java.util.List;

/**
 * An outstanding reservation: amounts held at every level of the scope path until it is
 * completed, cancelled or expires (ledger time {@code expiresAtMillis}). Ids come from the
 * ledger's counter, never from a random source.
 */
public record Reservation(
    long reservationId,
    String scope,
    List<ReservationItem> items,
    long configVersion,
    long createdAtMillis,
    long expiresAtMillis) {
  /** Its stored encoding (quota store format 1): the items come last. */
  public static final Shape<Reservation> SHAPE =
      Shape.reordered(
          Reservation.class,
          i64("reservationId", Reservation::reservationId),
          str("scope", Reservation::scope),
          i64("configVersion", Reservation::configVersion),
          i64("createdAtMillis", Reservation::createdAtMillis),
          i64("expiresAtMillis", Reservation::expiresAtMillis),
          list16("items", Reservation::items, ReservationItem.SHAPE));


  public Reservation {
    items = List.copyOf(items);
  }
}
