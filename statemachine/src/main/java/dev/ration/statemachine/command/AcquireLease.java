package dev.ration.statemachine.command;

import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.shape.Shape;

/** Ask for a new lease on (tenant, resource) for {@code holder}, up to the demanded shares. */
public record AcquireLease(
    String tenant, String resource, String holder, long demandRatePerSecond, long demandBurst)
    implements LeaseCommand {
  public static final int CODE = 2;

  /** Its fields in the log, in this order after the command code. */
  public static final Shape<AcquireLease> SHAPE =
      Shape.of(
          AcquireLease.class,
          str("tenant", AcquireLease::tenant),
          str("resource", AcquireLease::resource),
          str("holder", AcquireLease::holder),
          i64("demandRatePerSecond", AcquireLease::demandRatePerSecond),
          i64("demandBurst", AcquireLease::demandBurst));

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(LeaseCommand.Handler<R> handler) {
    return handler.acquire(this);
  }
}
