package dev.ration.statemachine.query;

import static dev.ration.wire.shape.Fields.bool;
import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.shape.Shape;

import dev.ration.wire.quota.QuotaSpec;

import dev.ration.wire.QuotaKind;

/**
 * What one level (scope, resource) is using. A value: every change makes a new record.
 *
 * @param windowStartMillis start of the current window or period (windowed kinds; else 0)
 * @param windowUsed amount charged in the current window: reserved amounts, trimmed to the
 *     actual amount when a reservation settles inside the window it was charged in
 * @param held amount held by outstanding reservations (all kinds)
 * @param allocated amount allocated by completed reservations (allocation kind)
 * @param alerted the soft threshold has been crossed in this window, or since usage last fell
 *     below it (so a crossing raises one alert, not one per request)
 */
public record LevelUsage(
    String scope,
    String resource,
    long windowStartMillis,
    long windowUsed,
    long held,
    long allocated,
    boolean alerted) {
  /** Its stored encoding (quota store format 1). */
  public static final Shape<LevelUsage> SHAPE =
      Shape.of(
          LevelUsage.class,
          str("scope", LevelUsage::scope),
          str("resource", LevelUsage::resource),
          i64("windowStartMillis", LevelUsage::windowStartMillis),
          i64("windowUsed", LevelUsage::windowUsed),
          i64("held", LevelUsage::held),
          i64("allocated", LevelUsage::allocated),
          bool("alerted", LevelUsage::alerted));



  public static LevelUsage empty(String scope, String resource) {
    return new LevelUsage(scope, resource, 0, 0, 0, 0, false);
  }

  /** Usage the admission check compares with the capacity. */
  public long used(QuotaKind kind) {
    return switch (kind) {
      case RATE, CUMULATIVE -> windowUsed;
      case CONCURRENT -> held;
      case ALLOCATION -> held + allocated;
    };
  }

  /** This usage as seen at {@code nowMillis}: a rolled window starts empty and unalerted. */
  public LevelUsage rolled(QuotaSpec spec, long nowMillis) {
    if (!spec.kind().windowed()) {
      return this;
    }
    long start = spec.windowStart(nowMillis);
    if (start == windowStartMillis) {
      return this;
    }
    return new LevelUsage(scope, resource, start, 0, held, allocated, false);
  }

  /** This level with new figures; only the quota ledger makes them, when it charges or settles. */
  public LevelUsage with(long windowUsed, long held, long allocated, boolean alerted) {
    return new LevelUsage(scope, resource, windowStartMillis, windowUsed, held, allocated, alerted);
  }
}
