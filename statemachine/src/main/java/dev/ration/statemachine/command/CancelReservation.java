package dev.ration.statemachine.command;

import static dev.ration.wire.shape.Fields.i64;

import dev.ration.wire.shape.Shape;

/**
 * Settle a reservation as unused: quantity 0, one usage event per item. Cancelling a settled
 * reservation answers with its first settlement and emits nothing.
 */
public record CancelReservation(long reservationId) implements QuotaCommand {
  public static final int CODE = 43;

  /** Its fields in the log, in this order after the command code. */
  public static final Shape<CancelReservation> SHAPE =
      Shape.of(
          CancelReservation.class,
          i64("reservationId", CancelReservation::reservationId));

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(QuotaCommand.Handler<R> handler) {
    return handler.cancel(this);
  }
}
