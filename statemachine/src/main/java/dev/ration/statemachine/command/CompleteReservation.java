package dev.ration.statemachine.command;

import java.util.List;

/**
 * Settle a reservation with the actual usage, one quantity per item in the reservation's order
 * (each at most the reserved amount). Emits one usage event per item. Completing a settled
 * reservation answers with its first settlement and emits nothing.
 */
public record CompleteReservation(long reservationId, List<Long> actuals) implements QuotaCommand {
  public static final int CODE = 42;

  public CompleteReservation {
    actuals = List.copyOf(actuals);
  }

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(QuotaCommand.Handler<R> handler) {
    return handler.complete(this);
  }
}
