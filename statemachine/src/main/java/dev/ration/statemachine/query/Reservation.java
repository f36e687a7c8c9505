package dev.ration.statemachine.query;

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
  public Reservation {
    items = List.copyOf(items);
  }
}
