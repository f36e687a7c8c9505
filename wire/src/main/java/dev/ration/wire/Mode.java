package dev.ration.wire;

/** What a holder may do once its lease expires without renewal. Codes are append-only. */
public enum Mode {
  /** Admit nothing until a new lease arrives. */
  HARD(0),
  /** Spend a one-off emergency budget E per disconnection, reported on reconnect. */
  BEST_EFFORT(1);

  private final int code;

  Mode(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  public static Mode fromCode(int code) {
    for (Mode m : values()) {
      if (m.code == code) {
        return m;
      }
    }
    throw new IllegalArgumentException("unknown mode code " + code);
  }
}
