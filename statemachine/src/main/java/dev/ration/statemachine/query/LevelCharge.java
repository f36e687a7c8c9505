package dev.ration.statemachine.query;

import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.shape.Shape;

/**
 * Where a reservation item was counted: one level of its scope path, and the window it was
 * charged in (0 for unwindowed kinds). Settlement trims the charge only in that same window.
 */
public record LevelCharge(String levelScope, long windowStartMillis) {
  /** Its stored encoding, inside a reservation item. */
  public static final Shape<LevelCharge> SHAPE =
      Shape.of(
          LevelCharge.class,
          str("levelScope", LevelCharge::levelScope),
          i64("windowStartMillis", LevelCharge::windowStartMillis));
}
