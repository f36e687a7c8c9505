package dev.ration.statemachine.command;

/**
 * Renew lease {@code leaseId}, presenting the newest version the holder has applied. Presenting
 * the current version acknowledges it (ends a pending two-phase shrink). The demand report
 * drives allocation; {@code emergencyUsed} reports best-effort overshoot spent while disconnected.
 */
public record RenewLease(
    long leaseId,
    long presentedVersion,
    long demandRatePerSecond,
    long demandBurst,
    long admittedPerSecond,
    long rejectedPerSecond,
    long emergencyUsed)
    implements LeaseCommand {
  public static final int CODE = 3;

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(LeaseCommand.Handler<R> handler) {
    return handler.renew(this);
  }
}
