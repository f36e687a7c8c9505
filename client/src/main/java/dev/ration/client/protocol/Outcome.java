package dev.ration.client.protocol;

/**
 * Domain outcomes of lease and limit operations, carried inside OK responses. 0 = success.
 * Same numbers as the state machine's outcomes. Append-only.
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
  // --- ttl (issue 4): 20-29
  ENTRY_UNKNOWN(20),
  NAMESPACE_FULL(21),
  // --- end ttl
  // --- quota (issue 6): 40-59
  RESERVATION_UNKNOWN(40);
  // --- end quota

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
