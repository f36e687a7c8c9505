package dev.ration.wire;

/**
 * What happens past a limit. {@code REJECT} (the default): nothing is admitted beyond the
 * limit. {@code ALLOW}: admitted up to the entry's {@code overageMax} beyond the limit, and the
 * part beyond the limit is flagged billable on the reservation and its usage event.
 * {@code OVERDRAFT} (a soft quota; RATE and CUMULATIVE only): the ledger grants and reserves up
 * to the limit, and each holder of a budget that cannot reach the ledger may admit up to the
 * entry's {@code overageMax} more from it (its overdraft E), reported and billed as overage when
 * it reconnects; a level admits at most its limit plus E for every holder cut off at once.
 * Codes are explicit and append-only.
 */
public enum Overage {
  REJECT(1),
  ALLOW(2),
  OVERDRAFT(3);

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
