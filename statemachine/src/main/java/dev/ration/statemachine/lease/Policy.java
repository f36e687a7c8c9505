package dev.ration.statemachine.lease;

/**
 * How a limit's capacity is split among holders. Codes are append-only.
 * {@link #FREE_CAPACITY} grants from free capacity up to the demand; the demand-driven policies
 * (fair-share, proportional, static) arrive with the regional limiter and plug into
 * {@link Allocation}.
 */
public enum Policy {
  FREE_CAPACITY(0);

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
