package dev.ration.statemachine.command;

import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.shape.Shape;

/**
 * Committed first by every new leader. Leases live before it keep counting until at least
 * {@code epochStart + leaseDuration + grace}; the epoch number rises by one.
 * {@code leaderId} is recorded for audit only.
 */
public record NewEpoch(String leaderId) implements LeaseCommand {
  public static final int CODE = 5;

  /** Its fields in the log, in this order after the command code. */
  public static final Shape<NewEpoch> SHAPE =
      Shape.of(
          NewEpoch.class,
          str("leaderId", NewEpoch::leaderId));

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(LeaseCommand.Handler<R> handler) {
    return handler.newEpoch(this);
  }

  @Override
  public boolean fromClient() {
    return false;
  }
}
