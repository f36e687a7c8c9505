package dev.ration.statemachine.command;

/**
 * Settle a reservation as unused: quantity 0, one usage event per item. Cancelling a settled
 * reservation answers with its first settlement and emits nothing.
 */
public record CancelReservation(long reservationId) implements QuotaCommand {
  public static final int CODE = 43;

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(QuotaCommand.Handler<R> handler) {
    return handler.cancel(this);
  }
}
