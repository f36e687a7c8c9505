package dev.ration.statemachine.command;

import static dev.ration.wire.shape.Fields.i64;

import dev.ration.wire.shape.Shape;

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

  /** Its fields in the log, in this order after the command code. */
  public static final Shape<RenewLease> SHAPE =
      Shape.of(
          RenewLease.class,
          i64("leaseId", RenewLease::leaseId),
          i64("presentedVersion", RenewLease::presentedVersion),
          i64("demandRatePerSecond", RenewLease::demandRatePerSecond),
          i64("demandBurst", RenewLease::demandBurst),
          i64("admittedPerSecond", RenewLease::admittedPerSecond),
          i64("rejectedPerSecond", RenewLease::rejectedPerSecond),
          i64("emergencyUsed", RenewLease::emergencyUsed));

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(LeaseCommand.Handler<R> handler) {
    return handler.renew(this);
  }
}
