package dev.ration.statemachine.query;

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
  public ReservationItem {
    charges = List.copyOf(charges);
  }
}
