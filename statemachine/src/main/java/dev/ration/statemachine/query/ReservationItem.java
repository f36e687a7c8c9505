package dev.ration.statemachine.query;

import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.list16;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.shape.Shape;

import java.util.List;

/**
 * One resource of a reservation.
 *
 * @param overage the billable part of {@code amount}: admitted beyond a hard limit under an
 *     ALLOW overage policy (the largest such part over the levels)
 * @param unit the unit of the deepest level's catalog entry
 * @param charges the levels the amount was counted at, from the organisation down
 */
public record ReservationItem(
    String resource, long amount, long overage, String unit, List<LevelCharge> charges) {
  /** Its stored encoding, inside a reservation. */
  public static final Shape<ReservationItem> SHAPE =
      Shape.of(
          ReservationItem.class,
          str("resource", ReservationItem::resource),
          i64("amount", ReservationItem::amount),
          i64("overage", ReservationItem::overage),
          str("unit", ReservationItem::unit),
          list16("charges", ReservationItem::charges, LevelCharge.SHAPE));


  public ReservationItem {
    charges = List.copyOf(charges);
  }
}
