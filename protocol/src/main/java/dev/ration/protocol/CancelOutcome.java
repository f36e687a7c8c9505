package dev.ration.protocol;

/** What a CANCEL frame did to the request it named. Codes are explicit and append-only. */
public enum CancelOutcome {
  /** Withdrawn before it was proposed: it is answered CANCELLED and never applied. */
  CANCELLED(1),
  /** Already proposed (or a read already answered): its own reply says what happened. */
  TOO_LATE(2),
  /** No request with that id is waiting on this connection: never sent, or already answered. */
  NOT_FOUND(3);

  private final int code;

  CancelOutcome(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  /** The outcome for a code; unknown codes (a newer server) are refused as malformed. */
  public static CancelOutcome fromCode(int code) {
    for (CancelOutcome o : values()) {
      if (o.code == code) {
        return o;
      }
    }
    throw new IllegalArgumentException("unknown cancel outcome " + code);
  }
}
