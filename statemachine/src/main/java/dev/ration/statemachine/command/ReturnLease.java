package dev.ration.statemachine.command;

/**
 * Hand a lease back. The holder has already invalidated its bucket; {@code unusedBalance} tokens
 * may be credited to the limit's bounded pool. Returning twice or returning an expired lease is
 * a no-op with the same answer.
 */
public record ReturnLease(long leaseId, long presentedVersion, long unusedBalance)
    implements LeaseCommand {
  public static final int CODE = 4;

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(LeaseCommand.Handler<R> handler) {
    return handler.returnLease(this);
  }
}
