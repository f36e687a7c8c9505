package dev.ration.wire;

/**
 * What a catalog entry counts. Codes are explicit and append-only (log, store and wire format).
 *
 * <ul>
 *   <li>{@code RATE}: amount admitted per {@link Window} (second, minute, hour, day), windows
 *       aligned to ledger time 0.
 *   <li>{@code CONCURRENT}: amount held by outstanding reservations (simultaneous operations).
 *   <li>{@code ALLOCATION}: amount held plus amount allocated by completed reservations (e.g.
 *       storage bytes); an ingested event with a negative quantity releases allocation.
 *   <li>{@code CUMULATIVE}: amount admitted per billing period (hour, day, week, calendar month
 *       in UTC) starting at the entry's period start; the period rolls over by ledger time.
 * </ul>
 */
public enum QuotaKind {
  RATE(1),
  CONCURRENT(2),
  ALLOCATION(3),
  CUMULATIVE(4);

  private final int code;

  QuotaKind(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  /** Kinds counted per window or period (usage resets when it rolls over). */
  public boolean windowed() {
    return this == RATE || this == CUMULATIVE;
  }

  public static QuotaKind fromCode(int code) {
    for (QuotaKind k : values()) {
      if (k.code == code) {
        return k;
      }
    }
    throw new IllegalArgumentException("unknown quota kind code " + code);
  }
}
