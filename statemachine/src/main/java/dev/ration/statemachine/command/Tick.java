package dev.ration.statemachine.command;

import static dev.ration.wire.shape.Fields.i32;

import dev.ration.wire.shape.Shape;

/**
 * Leader-proposed housekeeping: free at most {@code maxItems} counted shares, pending shrinks
 * and idempotency records that are due at or before the batch's time.
 */
public record Tick(int maxItems) implements Command {
  public static final int CODE = 6;

  /** Its fields in the log, in this order after the command code. */
  public static final Shape<Tick> SHAPE =
      Shape.of(
          Tick.class,
          i32("maxItems", Tick::maxItems));

  @Override
  public Touches touches() {
    return Touches.cluster();
  }

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public boolean fromClient() {
    return false;
  }

  /** Tick is the replica's own family: it pops the shared expiry index. */
  @Override
  public Class<Tick> family() {
    return Tick.class;
  }
}
