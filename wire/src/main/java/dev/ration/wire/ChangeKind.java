package dev.ration.wire;

/**
 * What happened to a TTL entry, as a watch reports it. Codes are append-only (they are on the
 * wire).
 */
public enum ChangeKind {
  /** A put, compare-and-set or update wrote a new version (value and expiry in the change). */
  PUT(1),
  /** A refresh moved the expiry of the same version. */
  REFRESH(2),
  /** A delete removed the entry (the change names the version removed). */
  DELETE(3),
  /** The entry reached its expiry and the ledger removed it. */
  EXPIRE(4),
  /** The namespace needed room and evicted the live entry (policy evict-soonest-expiring). */
  EVICT(5);

  private final int code;

  ChangeKind(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  /** Whether the entry is gone after this change. */
  public boolean removes() {
    return this == DELETE || this == EXPIRE || this == EVICT;
  }

  public static ChangeKind fromCode(int code) {
    for (ChangeKind k : values()) {
      if (k.code == code) {
        return k;
      }
    }
    throw new IllegalArgumentException("unknown TTL change kind code " + code);
  }
}
