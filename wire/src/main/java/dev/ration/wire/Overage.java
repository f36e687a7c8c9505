package dev.ration.wire;

/**
 * What happens past a hard limit. {@code REJECT} (the default): nothing is admitted beyond the
 * limit. {@code ALLOW}: admitted up to the entry's {@code overageMax} beyond the limit, and the
 * part beyond the limit is flagged billable on the reservation and its usage event.
 * Codes are explicit and append-only.
 */
public enum Overage {
  REJECT(1),
  ALLOW(2);

  private final int code;

  Overage(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  public static Overage fromCode(int code) {
    for (Overage o : values()) {
      if (o.code == code) {
        return o;
      }
    }
    throw new IllegalArgumentException("unknown overage code " + code);
  }
}
