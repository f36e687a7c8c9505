package dev.ration.client.quota;

import dev.ration.wire.EventType;
import dev.ration.wire.Outcome;
import java.util.List;
import java.util.Optional;

/**
 * How a reservation was settled (completed or cancelled). Settlement is idempotent: a repeat
 * answers with the first settlement and {@code alreadySettled}.
 *
 * @param outcome {@link Outcome#SUCCESS} or why the settlement was refused
 * @param message the server's explanation of a refusal; empty on success
 * @param reservationId the reservation
 * @param how on success, {@link EventType#COMPLETED} or {@link EventType#CANCELLED}
 * @param quantities the quantities recorded, one per item
 * @param eventSequences the usage events emitted, one per item
 * @param alreadySettled whether an earlier call had settled it
 */
public record Settlement(Outcome outcome, String message, long reservationId, Optional<EventType> how,
    List<Long> quantities, List<Long> eventSequences, boolean alreadySettled) {
  /**
   * A settlement; the lists are copied.
   *
   * @param outcome the outcome
   * @param message the message
   * @param reservationId the reservation
   * @param how completed or cancelled
   * @param quantities the quantities
   * @param eventSequences the usage events
   * @param alreadySettled whether it was settled before
   */
  public Settlement {
    quantities = List.copyOf(quantities);
    eventSequences = List.copyOf(eventSequences);
  }
}
