package dev.ration.statemachine.command;

/**
 * A consumer acknowledges the usage log up to and including {@code sequence}. The replicated
 * cursor only moves forward; reads resume after it (at-least-once delivery).
 */
public record AckUsage(String consumer, long sequence) implements QuotaCommand {
  public static final int CODE = 45;

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(QuotaCommand.Handler<R> handler) {
    return handler.ack(this);
  }
}
