package dev.ration.statemachine.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ration.statemachine.placement.SlotState.Phase;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class GroupSlotsTest {

  @Test
  void aMoveWalksBothGroupsThroughTheirPhases() {
    SlotDirectory dir = new SlotDirectory(2);
    GroupSlots a = GroupSlots.servingAll(0);
    GroupSlots b = GroupSlots.empty(1);
    assertEquals(new Admission.WrongGroup(5, -1, 0), b.admit(5));

    assertEquals(Optional.empty(), dir.begin(5, 1));
    long e = dir.move().orElseThrow().epoch();
    assertEquals(2, e);
    assertEquals(Optional.empty(), a.freeze(5, e));
    assertEquals(new Admission.Moving(5, 2), a.admit(5));
    assertEquals(Admission.ADMITTED, a.admit(6), "only the moving slot is frozen");
    assertEquals(Optional.empty(), b.install(5, e));
    assertEquals(new Admission.Moving(5, 2), b.admit(5));
    assertEquals(Optional.of("slot 5 at epoch 2 cannot flip before its source froze and its target"
        + " installed (acknowledged: [])"), dir.flip(5, e));
    assertEquals(Optional.of("FROZEN of slot 5 at epoch 2 is group 0's step, not group 1's"),
        dir.acknowledge(1, 5, e, SlotDirectory.Step.FROZEN));
    assertEquals(Optional.empty(), dir.acknowledge(0, 5, e, SlotDirectory.Step.FROZEN));
    assertEquals(Optional.empty(), dir.acknowledge(1, 5, e, SlotDirectory.Step.INSTALLED));
    assertEquals(Optional.of("ACTIVATED belongs after the flip of slot 5 at epoch 2"),
        dir.acknowledge(1, 5, e, SlotDirectory.Step.ACTIVATED));
    assertEquals(Optional.empty(), dir.flip(5, e));
    assertEquals(1, dir.owner(5));
    assertEquals(Optional.empty(), b.activate(5, e));
    assertEquals(Optional.empty(), dir.acknowledge(1, 5, e, SlotDirectory.Step.ACTIVATED));
    assertEquals(Optional.of("slot 5 at epoch 2 cannot finish before its target activated and its"
        + " source released (acknowledged: [ACTIVATED])"), dir.finish(5, e));
    assertEquals(Optional.empty(), a.release(5, e, 1));
    assertEquals(Optional.empty(), dir.acknowledge(0, 5, e, SlotDirectory.Step.RELEASED));
    assertEquals(Optional.empty(), dir.finish(5, e));
    assertEquals(Optional.empty(), dir.finish(5, e), "a repeated finish is done");

    assertEquals(Admission.ADMITTED, b.admit(5));
    assertEquals(new Admission.WrongGroup(5, 1, 2), a.admit(5), "the tombstone names the new owner");
    assertEquals(new SlotState(Phase.ABSENT, 2, 1), a.state(5));
  }

  @Test
  void aRepeatIsDoneAndAStaleStepIsRefusedWithWhatItNeeded() {
    GroupSlots a = GroupSlots.servingAll(0);
    assertEquals(Optional.empty(), a.freeze(9, 2));
    assertEquals(Optional.empty(), a.freeze(9, 2), "a repeat answers as done");
    assertEquals(Optional.of("unfreeze of slot 9 needs it frozen at epoch 1, but it is frozen at epoch 2"),
        a.unfreeze(9, 1));
    assertEquals(Optional.of("install of slot 9 needs it absent at an epoch below 3, but it is frozen at epoch 2"),
        a.install(9, 3));
    assertEquals(Optional.empty(), a.unfreeze(9, 2));
    assertEquals(Optional.of("freeze of slot 9 needs it active at an epoch below 2, but it is active at epoch 2"),
        a.freeze(9, 2), "an aborted attempt's freeze cannot come back");
  }

  @Test
  void theDirectoryDecidesEachAttemptOnceAndMovesOneSlotAtATime() {
    SlotDirectory dir = new SlotDirectory(3);
    assertEquals(Optional.of("slot 1 is already in group 0"), dir.begin(1, 0));
    assertEquals(Optional.of("no data group 3 (groups 0..2)"), dir.begin(1, 3));
    assertEquals(Optional.empty(), dir.begin(1, 2));
    assertEquals(Optional.of("a move is in progress (slot 1 from group 0 to 2): one mover at a time"),
        dir.begin(2, 1));
    assertEquals(Optional.empty(), dir.abort(1, 2));
    assertEquals(Optional.empty(), dir.abort(1, 2), "a repeated abort is done");
    assertEquals(Optional.empty(), dir.begin(1, 2));
    assertEquals(Optional.empty(), dir.abort(1, 2), "still done while a later attempt runs");
    assertEquals(3, dir.move().orElseThrow().epoch(), "an aborted attempt's epoch is never reused");
    assertEquals(Optional.empty(), dir.acknowledge(0, 1, 3, SlotDirectory.Step.FROZEN));
    assertEquals(Optional.empty(), dir.acknowledge(2, 1, 3, SlotDirectory.Step.INSTALLED));
    assertEquals(Optional.empty(), dir.flip(1, 3));
    assertEquals(Optional.empty(), dir.flip(1, 3), "a repeated flip is done");
    assertEquals(Optional.of("the move of slot 1 at epoch 3 is already flipped: it can only be finished"),
        dir.abort(1, 3));
    assertEquals(3, dir.ownerEpoch(1));
    assertEquals(1, dir.ownerEpoch(2));
    assertThrows(IllegalArgumentException.class, () -> new SlotDirectory(0));
    assertThrows(IllegalArgumentException.class, () -> dir.owner(256));
  }

  @Test
  void aLeftoverIsReleasedOrActivatedWhenItsAttemptFlippedElseThawedOrDropped() {
    SlotDirectory dir = new SlotDirectory(3);
    assertEquals(Optional.empty(), dir.begin(4, 1));
    assertEquals(Optional.empty(), dir.repair(0, 4, new SlotState(SlotState.Phase.FROZEN, 2, 0)),
        "an attempt in progress is its mover's");
    assertEquals(Optional.empty(), dir.abort(4, 2));
    assertEquals(Optional.of(SlotDirectory.Repair.UNFREEZE),
        dir.repair(0, 4, new SlotState(SlotState.Phase.FROZEN, 2, 0)));
    assertEquals(Optional.of(SlotDirectory.Repair.DROP),
        dir.repair(1, 4, new SlotState(SlotState.Phase.INACTIVE, 2, 1)));
    assertEquals(Optional.empty(), dir.begin(4, 1));
    assertEquals(Optional.empty(), dir.acknowledge(0, 4, 3, SlotDirectory.Step.FROZEN));
    assertEquals(Optional.empty(), dir.acknowledge(1, 4, 3, SlotDirectory.Step.INSTALLED));
    assertEquals(Optional.empty(), dir.flip(4, 3));
    assertEquals(Optional.empty(), dir.acknowledge(1, 4, 3, SlotDirectory.Step.ACTIVATED));
    assertEquals(Optional.empty(), dir.acknowledge(0, 4, 3, SlotDirectory.Step.RELEASED));
    assertEquals(Optional.empty(), dir.finish(4, 3));
    assertEquals(Optional.of(SlotDirectory.Repair.RELEASE),
        dir.repair(0, 4, new SlotState(SlotState.Phase.FROZEN, 3, 0)));
    assertEquals(Optional.of(SlotDirectory.Repair.ACTIVATE),
        dir.repair(1, 4, new SlotState(SlotState.Phase.INACTIVE, 3, 1)));
    assertEquals(Optional.of(SlotDirectory.Repair.DROP),
        dir.repair(2, 4, new SlotState(SlotState.Phase.INACTIVE, 3, 2)), "installed in a group not chosen");
    assertEquals(Optional.empty(), dir.repair(1, 4, new SlotState(SlotState.Phase.ACTIVE, 3, 1)));
  }

  @Test
  void aGroupNeverNamesItselfAsTheOtherSide() {
    GroupSlots a = GroupSlots.servingAll(0);
    assertEquals(Optional.empty(), a.freeze(2, 2));
    assertEquals(Optional.of("release of slot 2 needs another group as its target, not 0"),
        a.release(2, 2, 0));
    GroupSlots b = GroupSlots.empty(1);
    assertEquals(Optional.empty(), b.install(2, 2));
    assertEquals(Optional.of("drop of slot 2 needs another group as its source, not 1"), b.drop(2, 2, 1));
  }
}
