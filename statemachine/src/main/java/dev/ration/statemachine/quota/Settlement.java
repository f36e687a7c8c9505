package dev.ration.statemachine.quota;

import dev.ration.wire.EventType;

import java.util.List;

/**
 * How a reservation ended, kept for the settled-record retention so that a repeated complete or
 * cancel gets the same answer and reconciliation can compare it with the usage log.
 *
 * @param quantities the settled quantity per item, in item order (actual, 0 or the amount)
 */
public record Settlement(
    long reservationId,
    String scope,
    EventType how,
    long settledAtMillis,
    List<String> resources,
    List<Long> quantities) {
  public Settlement {
    resources = List.copyOf(resources);
    quantities = List.copyOf(quantities);
  }
}
