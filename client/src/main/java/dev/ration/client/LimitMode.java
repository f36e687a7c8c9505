package dev.ration.client;

/**
 * What a holder may do once its lease expires without renewal; same codes as the state
 * machine's {@code Mode}. Append-only.
 */
public enum LimitMode {
  HARD(0),
  BEST_EFFORT(1);

  private final int code;

  LimitMode(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  public static LimitMode fromCode(int code) {
    for (LimitMode m : values()) {
      if (m.code == code) {
        return m;
      }
    }
    throw new IllegalArgumentException("unknown mode code " + code);
  }
}
