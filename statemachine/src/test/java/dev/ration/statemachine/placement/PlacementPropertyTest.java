package dev.ration.statemachine.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.placement.SlotState.Phase;
import dev.ration.testkit.Property;
import dev.ration.testkit.Rng;
import dev.ration.wire.placement.Slots;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The move protocol over one directory and several data groups, driven by random moves, aborts,
 * commands that arrive late (after their mover gave up on them and aborted) and replays of every
 * command already delivered. Checked after every step: at most one group serves a slot, and that
 * group is the directory's owner (P1); a group never names itself as a slot's other holder (P2).
 * Checked once the mover is idle and the repairs have run: every slot is served by its owner
 * alone and absent everywhere else.
 */
class PlacementPropertyTest {
  private static final int GROUPS = 4;
  /** A few slots, so that moves of one slot follow each other and stale commands meet new ones. */
  private static final int[] SLOTS = {0, 7, 198, Slots.COUNT - 1};

  /** A command for one data group, kept so it can be delivered again later. */
  private record Sent(String name, int group, Function<GroupSlots, Optional<String>> step) {}

  @Test
  void oneServerPerSlotThroughMovesAbortsAndStaleCommands() {
    Property.check(300, rng -> {
      SlotDirectory dir = new SlotDirectory(GROUPS);
      GroupSlots[] groups = new GroupSlots[GROUPS];
      groups[0] = GroupSlots.servingAll(0);
      for (int g = 1; g < GROUPS; g++) {
        groups[g] = GroupSlots.empty(g);
      }
      List<Sent> delivered = new ArrayList<>();
      List<Sent> late = new ArrayList<>();
      int moves = rng.between(1, 25);
      for (int i = 0; i < moves; i++) {
        oneAttempt(rng, dir, groups, delivered, late);
        check(dir, groups);
      }
      // Whatever is still in flight arrives, then anything may be repeated once more.
      for (Sent s : late) {
        deliver(s, groups, delivered);
        check(dir, groups);
      }
      for (Sent s : List.copyOf(delivered)) {
        if (rng.oneIn(3)) {
          deliver(s, groups, delivered);
          check(dir, groups);
        }
      }
      repair(dir, groups);
      for (int slot = 0; slot < Slots.COUNT; slot++) {
        for (int g = 0; g < GROUPS; g++) {
          Phase expected = g == dir.owner(slot) ? Phase.ACTIVE : Phase.ABSENT;
          assertEquals(expected, groups[g].state(slot).phase(), "slot " + slot + " in group " + g);
        }
        assertEquals(Admission.ADMITTED, groups[dir.owner(slot)].admit(slot));
      }
    });
  }

  /** One attempt by the mover: begun, then flipped and finished, or aborted on the way. */
  private static void oneAttempt(Rng rng, SlotDirectory dir, GroupSlots[] groups,
      List<Sent> delivered, List<Sent> late) {
    int slot = SLOTS[rng.between(0, SLOTS.length - 1)];
    int target = rng.between(0, GROUPS - 1);
    if (dir.begin(slot, target).isPresent()) {
      assertEquals(target, dir.owner(slot), "begin refused only a move to the owner itself");
      return;
    }
    SlotDirectory.Move m = dir.move().orElseThrow();
    long e = m.epoch();
    int source = m.source();
    List<Sent> before = List.of(
        new Sent("freeze " + slot + "@" + e + " in " + source, source, g -> g.freeze(slot, e)),
        new Sent("install " + slot + "@" + e + " in " + target, target, g -> g.install(slot, e)));
    boolean aborted = false;
    for (Sent s : before) {
      replaySome(rng, dir, groups, delivered);
      if (rng.oneIn(6)) {
        // No answer in time: the command may still apply later; the mover aborts.
        late.add(s);
        aborted = true;
        break;
      }
      assertEquals(Optional.empty(), deliver(s, groups, delivered), s.name());
    }
    if (aborted || rng.oneIn(5)) {
      assertEquals(Optional.empty(), dir.abort(slot, e));
      // Both may be refused (their step never applied); they must not fail otherwise.
      deliver(new Sent("drop " + slot + "@" + e + " in " + target, target,
          g -> g.drop(slot, e, source)), groups, delivered);
      deliver(new Sent("unfreeze " + slot + "@" + e + " in " + source, source,
          g -> g.unfreeze(slot, e)), groups, delivered);
      assertTrue(dir.flip(slot, e).isPresent(), "an aborted attempt cannot be flipped");
      return;
    }
    assertEquals(Optional.empty(), dir.flip(slot, e));
    assertTrue(dir.abort(slot, e).isPresent(), "a flipped attempt cannot be aborted");
    check(dir, groups);
    replaySome(rng, dir, groups, delivered);
    assertEquals(Optional.empty(), deliver(new Sent("activate " + slot + "@" + e + " in " + target,
        target, g -> g.activate(slot, e)), groups, delivered));
    check(dir, groups);
    replaySome(rng, dir, groups, delivered);
    assertEquals(Optional.empty(), deliver(new Sent("release " + slot + "@" + e + " in " + source,
        source, g -> g.release(slot, e, target)), groups, delivered));
    assertEquals(Optional.empty(), dir.finish(slot, e));
  }

  private static Optional<String> deliver(Sent s, GroupSlots[] groups, List<Sent> delivered) {
    delivered.add(s);
    return s.step().apply(groups[s.group()]);
  }

  /** Delivers a few earlier commands again, each checked against the invariants. */
  private static void replaySome(Rng rng, SlotDirectory dir, GroupSlots[] groups,
      List<Sent> delivered) {
    int n = delivered.isEmpty() ? 0 : rng.between(0, 2);
    for (int i = 0; i < n; i++) {
      Sent s = delivered.get(rng.between(0, delivered.size() - 1));
      s.step().apply(groups[s.group()]);
      check(dir, groups);
    }
  }

  /**
   * What a reconciler does once no move is in progress: a slot frozen or installed by an attempt
   * that is not in progress (its command arrived after the mover had given up) is thawed or
   * dropped. Epoch-checked like every step, so it cannot undo a later attempt.
   */
  private static void repair(SlotDirectory dir, GroupSlots[] groups) {
    assertTrue(dir.move().isEmpty());
    for (int slot : SLOTS) {
      for (GroupSlots g : groups) {
        SlotState s = g.state(slot);
        if (s.phase() == Phase.FROZEN) {
          assertEquals(Optional.empty(), g.unfreeze(slot, s.epoch()));
        } else if (s.phase() == Phase.INACTIVE) {
          assertEquals(Optional.empty(), g.drop(slot, s.epoch(), dir.owner(slot)));
        }
        check(dir, groups);
      }
    }
  }

  /** P1 and P2 over every slot. */
  private static void check(SlotDirectory dir, GroupSlots[] groups) {
    for (int slot = 0; slot < Slots.COUNT; slot++) {
      int serving = 0;
      for (GroupSlots g : groups) {
        SlotState s = g.state(slot);
        if (s.phase() == Phase.ACTIVE) {
          serving++;
          assertEquals(dir.owner(slot), g.self(), "slot " + slot + " served by a group that is not its owner");
        }
        if (s.phase() == Phase.ABSENT) {
          assertNotEquals(g.self(), s.ownerHint(), "group " + g.self() + " names itself for slot " + slot);
          assertFalse(g.admit(slot) instanceof Admission.Admitted);
        }
      }
      assertTrue(serving <= 1, "slot " + slot + " served by " + serving + " groups");
    }
  }
}
