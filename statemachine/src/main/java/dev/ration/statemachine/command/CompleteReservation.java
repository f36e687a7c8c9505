package dev.ration.statemachine.command;

import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.longs16;

import java.util.List;
import dev.ration.wire.shape.Shape;

/**
 * Settle a reservation with the actual usage, one quantity per item in the reservation's order
 * (each at most the reserved amount). Emits one usage event per item. Completing a settled
 * reservation answers with its first settlement and emits nothing.
 */
public record CompleteReservation(long reservationId, List<Long> actuals) implements QuotaCommand {
  public static final int CODE = 42;

  /** Its fields in the log, in this order after the command code. */
  public static final Shape<CompleteReservation> SHAPE =
      Shape.of(
          CompleteReservation.class,
          i64("reservationId", CompleteReservation::reservationId),
          longs16("actuals", CompleteReservation::actuals));

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
