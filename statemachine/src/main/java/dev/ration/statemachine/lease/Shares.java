package dev.ration.statemachine.lease;

/** A pair of shares of a limit: tokens per second and burst tokens. Never negative. */
public record Shares(long ratePerSecond, long burst) {
  public static final Shares ZERO = new Shares(0, 0);

  public boolean isZero() {
    return ratePerSecond == 0 && burst == 0;
  }
}
