package dev.ration.statemachine.result;

/** Domain outcomes of a rejected command: replicated values, not exceptions. Append-only codes. */
public enum Outcome {
  LIMIT_UNKNOWN(1),
  LIMIT_EXHAUSTED(2),
  LEASE_UNKNOWN(3),
  LEASE_EXPIRED(4),
  VERSION_MISMATCH(5),
  STALE_CONFIG(6),
  INVALID_ARGUMENT(7);

  private final int code;

  Outcome(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  public static Outcome fromCode(int code) {
    for (Outcome o : values()) {
      if (o.code == code) {
        return o;
      }
    }
    throw new IllegalArgumentException("unknown outcome code " + code);
  }
}
