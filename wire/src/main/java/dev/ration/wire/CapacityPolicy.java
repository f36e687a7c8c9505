package dev.ration.wire;

/**
 * What a full namespace does with a write that needs room, after expired entries have gone
 * (they always go first). Codes are append-only.
 */
public enum CapacityPolicy {
  /** Refuse the write with NAMESPACE_FULL (the default). */
  REJECT(1),
  /** Evict the live entries soonest to expire (ties: lowest version first) until it fits. */
  EVICT_SOONEST_EXPIRING(2);

  private final int code;

  CapacityPolicy(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  public static CapacityPolicy fromCode(int code) {
    for (CapacityPolicy p : values()) {
      if (p.code == code) {
        return p;
      }
    }
    throw new IllegalArgumentException("unknown capacity policy code " + code);
  }
}
