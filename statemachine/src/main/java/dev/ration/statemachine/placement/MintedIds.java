package dev.ration.statemachine.placement;

import dev.ration.statemachine.InvariantViolation;
import dev.ration.wire.placement.SlotIds;
import dev.ration.wire.placement.Slots;

/**
 * The invariant every id a ledger minted ({@link SlotIds}) holds: its counter is at least 1 and
 * below the ledger's next counter, and a slotted id carries its tenant's slot, so routing by the
 * id alone reaches the group that holds the object.
 */
public final class MintedIds {
  private MintedIds() {}

  /** Throws {@link InvariantViolation} ({@code invariant}, e.g. "I7") unless {@code id} of
   *  {@code what} owned by {@code tenant} is one the ledger could have minted. */
  public static void verify(String invariant, String what, long id, String tenant, long nextCounter) {
    long counter = SlotIds.counterOf(id);
    if (id <= 0 || counter < 1 || counter >= nextCounter) {
      throw new InvariantViolation(invariant + " " + what + " id " + id + ": counter " + counter
          + " not in [1, " + nextCounter + ")");
    }
    if (SlotIds.slotted(id) && SlotIds.slotOf(id) != Slots.of(tenant)) {
      throw new InvariantViolation(invariant + " " + what + " id " + id + " carries slot "
          + SlotIds.slotOf(id) + " but its tenant " + tenant + " is in slot " + Slots.of(tenant));
    }
  }
}
