package dev.ration.statemachine.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.placement.SlotDirectory.Repair;
import dev.ration.statemachine.placement.SlotDirectory.Step;
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
 * The move protocol over one directory and four data groups, driven by a mover that gives up on
 * steps (their commands then apply late, at any later point: during later attempts too), aborts,
 * retries, asks the directory to flip or finish too early, and by repairs run at random points,
 * while any command already delivered may be delivered again. Checked after every step: at most
 * one group serves a slot, and that group is the directory's owner (P1); a group never names
 * itself as a slot's other holder (P2, asserted inside {@link GroupSlots}). Checked once every
 * late command has arrived and the repairs have run to the end: every slot is served by its
 * owner alone and absent everywhere else.
 */
class PlacementPropertyTest {
  private static final int GROUPS = 4;
  /** A few slots, so that attempts on one slot follow each other and late commands meet new ones. */
  private static final int[] SLOTS = {0, 7, 198, Slots.COUNT - 1};

  /** A command for one data group, kept so it can be delivered again (or late) later. */
  private record Sent(String name, int group, Function<GroupSlots, Optional<String>> step) {}

  /** The world: the directory, the groups, what was delivered and what is still in flight. */
  private static final class World {
    final Rng rng;
    final SlotDirectory dir = new SlotDirectory(GROUPS);
    final GroupSlots[] groups = new GroupSlots[GROUPS];
    final List<Sent> delivered = new ArrayList<>();
    final List<Sent> late = new ArrayList<>();

    World(Rng rng) {
      this.rng = rng;
      groups[0] = GroupSlots.servingAll(0);
      for (int g = 1; g < GROUPS; g++) {
        groups[g] = GroupSlots.empty(g);
      }
    }

    Optional<String> deliver(Sent s) {
      delivered.add(s);
      Optional<String> r = s.step().apply(groups[s.group()]);
      check();
      return r;
    }

    /**
     * Sends {@code s} as the mover does: applied and answered, or (sometimes) no answer in time,
     * in which case it stays in flight and may apply at any later point. Returns whether the
     * mover saw it applied.
     */
    boolean send(Sent s) {
      if (rng.oneIn(7)) {
        late.add(s);
        return false;
      }
      return deliver(s).isEmpty();
    }

    /** Whatever the world does between two of the mover's steps. */
    void meanwhile() {
      int n = rng.between(0, 3);
      for (int i = 0; i < n; i++) {
        int what = rng.between(0, 2);
        if (what == 0 && !late.isEmpty()) {
          deliver(late.remove(rng.between(0, late.size() - 1)));
        } else if (what == 1 && !delivered.isEmpty()) {
          deliver(delivered.get(rng.between(0, delivered.size() - 1)));
        } else {
          repairOne(rng.between(0, GROUPS - 1), SLOTS[rng.between(0, SLOTS.length - 1)]);
        }
      }
    }

    /** The directory's repair for one group's slot, applied (it may be refused: a race). */
    boolean repairOne(int g, int slot) {
      SlotState s = groups[g].state(slot);
      Optional<Repair> r = dir.repair(g, slot, s);
      if (r.isEmpty()) {
        return false;
      }
      long e = s.epoch();
      int owner = dir.owner(slot);
      Sent step = switch (r.get()) {
        case UNFREEZE -> new Sent("repair unfreeze " + slot + "@" + e, g, x -> x.unfreeze(slot, e));
        case RELEASE -> new Sent("repair release " + slot + "@" + e, g, x -> x.release(slot, e, owner));
        case ACTIVATE -> new Sent("repair activate " + slot + "@" + e, g, x -> x.activate(slot, e));
        case DROP -> new Sent("repair drop " + slot + "@" + e, g, x -> x.drop(slot, e, owner));
      };
      return deliver(step).isEmpty();
    }

    /** P1 over every slot. */
    void check() {
      for (int slot = 0; slot < Slots.COUNT; slot++) {
        int serving = 0;
        for (GroupSlots g : groups) {
          SlotState s = g.state(slot);
          if (s.phase() == Phase.ACTIVE) {
            serving++;
            assertEquals(dir.owner(slot), g.self(), "slot " + slot + " served by a group that is not its owner");
          } else {
            assertFalse(g.admit(slot) instanceof Admission.Admitted);
          }
          if (s.phase() == Phase.ABSENT) {
            assertNotEquals(g.self(), s.ownerHint());
          }
        }
        assertTrue(serving <= 1, "slot " + slot + " served by " + serving + " groups");
      }
    }
  }

  @Test
  void oneServerPerSlotThroughMovesAbortsLateStepsAndRepairs() {
    Property.check(300, rng -> {
      World w = new World(rng);
      int attempts = rng.between(1, 30);
      for (int i = 0; i < attempts; i++) {
        oneAttempt(w);
        w.meanwhile();
      }
      // Everything in flight arrives; then the repairs run until nothing is left over.
      while (!w.late.isEmpty()) {
        w.deliver(w.late.remove(0));
      }
      for (int round = 0; round < 3; round++) {
        for (int slot : SLOTS) {
          for (int g = 0; g < GROUPS; g++) {
            w.repairOne(g, slot);
          }
        }
      }
      for (int slot = 0; slot < Slots.COUNT; slot++) {
        for (int g = 0; g < GROUPS; g++) {
          Phase expected = g == w.dir.owner(slot) ? Phase.ACTIVE : Phase.ABSENT;
          assertEquals(expected, w.groups[g].state(slot).phase(), "slot " + slot + " in group " + g);
        }
        assertEquals(Admission.ADMITTED, w.groups[w.dir.owner(slot)].admit(slot));
      }
    });
  }

  /** One attempt by the mover: begun, then flipped and finished, or aborted on the way. */
  private static void oneAttempt(World w) {
    Rng rng = w.rng;
    int slot = SLOTS[rng.between(0, SLOTS.length - 1)];
    int target = rng.between(0, GROUPS - 1);
    if (w.dir.begin(slot, target).isPresent()) {
      assertEquals(target, w.dir.owner(slot), "begin refused only a move to the owner itself");
      return;
    }
    SlotDirectory.Move m = w.dir.move().orElseThrow();
    long e = m.epoch();
    int source = m.source();
    boolean ok = w.send(new Sent("freeze " + slot + "@" + e + " in " + source, source, g -> g.freeze(slot, e)))
        && w.dir.acknowledge(source, slot, e, Step.FROZEN).isEmpty();
    w.meanwhile();
    if (rng.oneIn(8)) {
      assertTrue(w.dir.flip(slot, e).isPresent(), "no flip before the target installed");
    }
    ok = ok && w.send(new Sent("install " + slot + "@" + e + " in " + target, target, g -> g.install(slot, e)))
        && w.dir.acknowledge(target, slot, e, Step.INSTALLED).isEmpty();
    w.meanwhile();
    if (!ok || rng.oneIn(5)) {
      assertEquals(Optional.empty(), w.dir.abort(slot, e));
      assertEquals(Optional.empty(), w.dir.abort(slot, e), "a repeated abort is done");
      // Either may be refused (its step never applied, or applies later) or get no answer.
      w.send(new Sent("drop " + slot + "@" + e + " in " + target, target, g -> g.drop(slot, e, source)));
      w.send(new Sent("unfreeze " + slot + "@" + e + " in " + source, source, g -> g.unfreeze(slot, e)));
      assertTrue(w.dir.flip(slot, e).isPresent(), "an aborted attempt cannot be flipped");
      return;
    }
    assertEquals(Optional.empty(), w.dir.flip(slot, e));
    assertTrue(w.dir.abort(slot, e).isPresent(), "a flipped attempt cannot be aborted");
    w.meanwhile();
    // After the flip each step is sent until it is seen applied; nothing may refuse it.
    while (!w.send(new Sent("activate " + slot + "@" + e + " in " + target, target, g -> g.activate(slot, e)))) {
      assertEquals(Phase.INACTIVE, w.groups[target].state(slot).phase(),
          "the target keeps its copy until it activates");
    }
    assertEquals(Optional.empty(), w.dir.acknowledge(target, slot, e, Step.ACTIVATED));
    if (rng.oneIn(6)) {
      assertTrue(w.dir.finish(slot, e).isPresent(), "no finish before the source released");
    }
    w.meanwhile();
    while (!w.send(new Sent("release " + slot + "@" + e + " in " + source, source, g -> g.release(slot, e, target)))) {
      assertEquals(Phase.FROZEN, w.groups[source].state(slot).phase(), "the source stays frozen");
    }
    assertEquals(Optional.empty(), w.dir.acknowledge(source, slot, e, Step.RELEASED));
    assertEquals(Optional.empty(), w.dir.finish(slot, e));
    assertEquals(Optional.empty(), w.dir.finish(slot, e), "a repeated finish is done");
  }
}
