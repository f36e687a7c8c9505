package dev.ration.wire;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;

/**
 * The window of a {@code RATE} entry or the billing period of a {@code CUMULATIVE} one.
 * {@code NONE} for concurrent and allocation entries. Codes are explicit and append-only.
 *
 * <p>Boundaries are pure functions of ledger time and the anchor (0 for rate windows, the
 * entry's period start for billing periods): every replica computes the same window, and no
 * clock is read. {@code MONTH} is a calendar month in UTC counted from the anchor's
 * date-time (java.time arithmetic, deterministic).
 */
public enum Window {
  NONE(0, 0),
  SECOND(1, 1_000L),
  MINUTE(2, 60_000L),
  HOUR(3, 3_600_000L),
  DAY(4, 86_400_000L),
  WEEK(5, 7 * 86_400_000L),
  MONTH(6, 0);

  private final int code;
  private final long lengthMillis;

  Window(int code, long lengthMillis) {
    this.code = code;
    this.lengthMillis = lengthMillis;
  }

  public int code() {
    return code;
  }

  public static Window fromCode(int code) {
    for (Window w : values()) {
      if (w.code == code) {
        return w;
      }
    }
    throw new IllegalArgumentException("unknown window code " + code);
  }

  /** Start of the window holding {@code atMillis}, for windows anchored at {@code anchorMillis}. */
  public long startOf(long atMillis, long anchorMillis) {
    if (this == NONE) {
      return 0;
    }
    if (this == MONTH) {
      ZonedDateTime anchor = Instant.ofEpochMilli(anchorMillis).atZone(ZoneOffset.UTC);
      ZonedDateTime at = Instant.ofEpochMilli(atMillis).atZone(ZoneOffset.UTC);
      long months = ChronoUnit.MONTHS.between(anchor, at);
      ZonedDateTime start = anchor.plusMonths(months);
      if (start.isAfter(at)) {
        start = anchor.plusMonths(months - 1);
      }
      return start.toInstant().toEpochMilli();
    }
    return anchorMillis + Math.floorDiv(atMillis - anchorMillis, lengthMillis) * lengthMillis;
  }

  /** End (exclusive) of the window that starts at {@code startMillis}. */
  public long endOf(long startMillis) {
    if (this == NONE) {
      return Long.MAX_VALUE;
    }
    if (this == MONTH) {
      return Instant.ofEpochMilli(startMillis).atZone(ZoneOffset.UTC).plusMonths(1).toInstant()
          .toEpochMilli();
    }
    return startMillis + lengthMillis;
  }
}
