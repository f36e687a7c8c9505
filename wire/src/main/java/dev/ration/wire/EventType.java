package dev.ration.wire;

/**
 * Why a record is in the usage log. Codes are explicit and append-only. {@code ALERT} records
 * (a soft threshold crossed) travel in the same log so consumers see them in order, but are
 * not usage: aggregates and reconciliation skip them. {@code BUDGET_SPENT} records carry what a
 * budget's holder admitted locally, reported on renewal or return.
 */
public enum EventType {
  COMPLETED(1),
  CANCELLED(2),
  EXPIRED(3),
  INGESTED(4),
  COMPENSATION(5),
  ALERT(6),
  /** What a budget's holder reported it admitted since its previous report. */
  BUDGET_SPENT(7);

  private final int code;

  EventType(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  public boolean isUsage() {
    return this != ALERT;
  }

  public static EventType fromCode(int code) {
    for (EventType t : values()) {
      if (t.code == code) {
        return t;
      }
    }
    throw new IllegalArgumentException("unknown usage event type code " + code);
  }
}
