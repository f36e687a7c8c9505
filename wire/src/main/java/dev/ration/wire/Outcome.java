package dev.ration.wire;

/**
 * Domain outcomes: replicated values, not exceptions. A rejected command carries one of them in
 * its result, and a reply carries one inside an OK response. {@link #SUCCESS} (0) is never a
 * rejection. Codes are explicit and append-only: lease 1-19, TTL 20-39, quota 40-59.
 */
public enum Outcome {
  SUCCESS(0),
  LIMIT_UNKNOWN(1),
  LIMIT_EXHAUSTED(2),
  LEASE_UNKNOWN(3),
  LEASE_EXPIRED(4),
  VERSION_MISMATCH(5),
  STALE_CONFIG(6),
  INVALID_ARGUMENT(7),
  /** Refresh of an entry that is absent or expired. */
  ENTRY_UNKNOWN(20),
  /** The namespace has no room and its policy is REJECT (or the write can never fit). */
  NAMESPACE_FULL(21),
  /** complete/cancel of a reservation that never existed or whose settlement is forgotten. */
  RESERVATION_UNKNOWN(40),
  /** A report or return for a budget that is not held (never granted, returned, or dropped). */
  BUDGET_UNKNOWN(41);

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
