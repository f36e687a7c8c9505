package dev.ration.statemachine.command;

import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.shape.Shape;

/**
 * A consumer acknowledges the usage log up to and including {@code sequence}. The replicated
 * cursor only moves forward; reads resume after it (at-least-once delivery).
 */
public record AckUsage(String consumer, long sequence) implements QuotaCommand {
  public static final int CODE = 45;

  /** Its fields in the log, in this order after the command code. */
  public static final Shape<AckUsage> SHAPE =
      Shape.of(
          AckUsage.class,
          str("consumer", AckUsage::consumer),
          i64("sequence", AckUsage::sequence));

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(QuotaCommand.Handler<R> handler) {
    return handler.ack(this);
  }
}
