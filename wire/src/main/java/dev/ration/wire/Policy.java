package dev.ration.wire;

/**
 * How a limit's capacity is split among holders. Codes are append-only.
 *
 * <p>{@link #FREE_CAPACITY} grants from free capacity up to the demand (first come, first
 * served). The demand-driven policies compute a <i>target</i> for every live holder of the limit
 * from the demand each last reported (see {@link Allocation#targets}); a holder is moved towards
 * its target when it acquires or renews: down at once (two-phase: the old share stays counted
 * until acknowledged or expired), up only from capacity that is free at that moment.
 */
public enum Policy {
  FREE_CAPACITY(0),
  /** Max-min fair split of R and of B over the demands (water-filling; capacity beyond the
   *  total demand stays free, as the growth reserve). */
  FAIR_SHARE(1),
  /** Everyone gets its demand when the total fits; otherwise floor(C·demand / Σ demand). */
  PROPORTIONAL(2),
  /** An equal split of R and B over the live holders, whatever their demand. */
  STATIC(3);

  private final int code;

  Policy(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  public static Policy fromCode(int code) {
    for (Policy p : values()) {
      if (p.code == code) {
        return p;
      }
    }
    throw new IllegalArgumentException("unknown policy code " + code);
  }
}
