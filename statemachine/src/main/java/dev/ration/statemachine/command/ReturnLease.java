package dev.ration.statemachine.command;

import static dev.ration.wire.shape.Fields.i64;

import dev.ration.wire.shape.Shape;

/**
 * Hand a lease back. The holder has already invalidated its bucket; {@code unusedBalance} tokens
 * may be credited to the limit's bounded pool. Returning twice or returning an expired lease is
 * a no-op with the same answer.
 */
public record ReturnLease(long leaseId, long presentedVersion, long unusedBalance)
    implements LeaseCommand {
  public static final int CODE = 4;

  /** Its fields in the log, in this order after the command code. */
  public static final Shape<ReturnLease> SHAPE =
      Shape.of(
          ReturnLease.class,
          i64("leaseId", ReturnLease::leaseId),
          i64("presentedVersion", ReturnLease::presentedVersion),
          i64("unusedBalance", ReturnLease::unusedBalance));

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(LeaseCommand.Handler<R> handler) {
    return handler.returnLease(this);
  }
}
