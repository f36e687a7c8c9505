package dev.ration.statemachine.placement;

import dev.ration.statemachine.InvariantViolation;
import dev.ration.statemachine.placement.SlotState.Phase;
import dev.ration.wire.placement.Slots;
import java.util.Arrays;
import java.util.Optional;

/**
 * One data group's replicated view of the slots: which it serves, which are moving in or out,
 * and where the others went. The only input is the group's own log, so every replica holds the
 * same table; the directory group decides moves, and its mover tells each group its part as
 * commands in that group's log.
 *
 * <p>A move attempt of slot s, numbered by the directory with an epoch m above every epoch
 * the slot had (docs/ARCHITECTURE.md), from source A to target B: A {@link #freeze}s s (nothing
 * for s applies in A from that log index on), B {@link #install}s A's export (inactive), the
 * directory flips the owner to B, then B {@link #activate}s and A {@link #release}s (a tombstone
 * naming B). Before the flip the attempt may be aborted: B {@link #drop}s its copy, A
 * {@link #unfreeze}s. Every state a step leaves carries m.
 *
 * <p>Every step names its attempt's epoch and is checked against the slot's current phase and
 * epoch: a command delivered late, twice, or from an earlier attempt is refused and changes
 * nothing (an aborted attempt's unfreeze cannot thaw a later attempt's freeze, its drop cannot
 * drop a later install); a repeat of the step that already happened is answered as done (so the
 * mover can retry without a request key). At most one group serves a slot at any time (invariant P1,
 * docs/INVARIANTS.md) follows from this per-group fencing and from the directory deciding a
 * move's flip or abort exactly once; {@code PlacementPropertyTest} checks it over random moves,
 * aborts, late and repeated deliveries and repairs.
 *
 * <p>Thread: the applying thread.
 */
public final class GroupSlots {
  private final int self;
  private final SlotState[] slots = new SlotState[Slots.COUNT];
  /** How many slots are not {@link Phase#ACTIVE} here: 0 lets admission skip the table. */
  private int notActive;

  private GroupSlots(int self, SlotState initial) {
    if (self < 0) {
      throw new IllegalArgumentException("group number " + self + " < 0");
    }
    this.self = self;
    Arrays.fill(slots, initial);
    this.notActive = initial.phase() == Phase.ACTIVE ? 0 : Slots.COUNT;
  }

  /** The first data group of a cluster (or a single-group cluster upgraded in place): serves
   *  every slot, at epoch 1 (the directory's first epoch). */
  public static GroupSlots servingAll(int self) {
    return new GroupSlots(self, new SlotState(Phase.ACTIVE, 1, self));
  }

  /** A group created empty: serves nothing until slots are moved to it. */
  public static GroupSlots empty(int self) {
    return new GroupSlots(self, SlotState.NEVER_HELD);
  }

  public int self() {
    return self;
  }

  public SlotState state(int slot) {
    return slots[Slots.check(slot)];
  }

  /** Whether every slot is served here (a single-group cluster): nothing can be misrouted. */
  public boolean servesEverySlot() {
    return notActive == 0;
  }

  /** Whether a command for {@code slot} applies here. */
  public Admission admit(int slot) {
    SlotState s = state(slot);
    return switch (s.phase()) {
      case ACTIVE -> Admission.ADMITTED;
      case FROZEN, INACTIVE -> new Admission.Moving(slot, s.epoch());
      case ABSENT -> new Admission.WrongGroup(slot, s.ownerHint(), s.epoch());
    };
  }

  /** Source, first step of move attempt {@code epoch}: stop serving {@code slot}. */
  public Optional<String> freeze(int slot, long epoch) {
    return begin(slot, "freeze", Phase.ACTIVE, epoch, Phase.FROZEN);
  }

  /** Source, after attempt {@code epoch} was aborted: serve {@code slot} again. */
  public Optional<String> unfreeze(int slot, long epoch) {
    return step(slot, "unfreeze", Phase.FROZEN, epoch, new SlotState(Phase.ACTIVE, epoch, self));
  }

  /** Source, after attempt {@code epoch} flipped: {@code slot} now belongs to {@code target}. */
  public Optional<String> release(int slot, long epoch, int target) {
    if (target == self || target < 0) {
      return Optional.of("release of slot " + slot + " needs another group as its target, not " + target);
    }
    return step(slot, "release", Phase.FROZEN, epoch, new SlotState(Phase.ABSENT, epoch, target));
  }

  /** Target, before attempt {@code epoch} is decided: hold {@code slot}'s state unserved. */
  public Optional<String> install(int slot, long epoch) {
    return begin(slot, "install", Phase.ABSENT, epoch, Phase.INACTIVE);
  }

  /** Target, after attempt {@code epoch} flipped: serve {@code slot}. */
  public Optional<String> activate(int slot, long epoch) {
    return step(slot, "activate", Phase.INACTIVE, epoch, new SlotState(Phase.ACTIVE, epoch, self));
  }

  /** Target, after attempt {@code epoch} was aborted: forget the copy; the slot stays with
   *  {@code source}. */
  public Optional<String> drop(int slot, long epoch, int source) {
    if (source == self || source < 0) {
      return Optional.of("drop of slot " + slot + " needs another group as its source, not " + source);
    }
    return step(slot, "drop", Phase.INACTIVE, epoch, new SlotState(Phase.ABSENT, epoch, source));
  }

  /** The first step of attempt {@code epoch} in this group: from {@code from} at any earlier
   *  epoch to {@code to} at {@code epoch}. */
  private Optional<String> begin(int slot, String what, Phase from, long epoch, Phase to) {
    SlotState s = state(slot);
    SlotState next = new SlotState(to, epoch, self);
    if (s.equals(next)) {
      return Optional.empty();
    }
    if (s.phase() != from || s.epoch() >= epoch) {
      return Optional.of(refusal(slot, what, s, from.name().toLowerCase() + " at an epoch below " + epoch));
    }
    set(slot, next);
    return Optional.empty();
  }

  /** A later step of attempt {@code epoch}: from {@code from} at {@code epoch} to {@code to}. */
  private Optional<String> step(int slot, String what, Phase from, long epoch, SlotState to) {
    SlotState s = state(slot);
    if (s.equals(to)) {
      return Optional.empty();
    }
    if (s.phase() != from || s.epoch() != epoch) {
      return Optional.of(refusal(slot, what, s, from.name().toLowerCase() + " at epoch " + epoch));
    }
    set(slot, to);
    return Optional.empty();
  }

  private static String refusal(int slot, String what, SlotState s, String needed) {
    return what + " of slot " + slot + " needs it " + needed + ", but it is "
        + s.phase().name().toLowerCase() + " at epoch " + s.epoch();
  }

  /**
   * Sets {@code slot} to a state read back from the group's store (at open): no step check, only
   * the per-slot invariant, since the stored state was reached by checked steps.
   */
  public void restore(int slot, SlotState state) {
    set(Slots.check(slot), state);
  }

  /** P2 for every slot, and the count of unserved slots is exact; throws InvariantViolation. */
  public void verify() {
    int unserved = 0;
    for (int s = 0; s < Slots.COUNT; s++) {
      check(s);
      unserved += slots[s].phase() == Phase.ACTIVE ? 0 : 1;
    }
    if (unserved != notActive) {
      throw new InvariantViolation("P2 group " + self + " counts " + notActive
          + " unserved slots but " + unserved + " are not active");
    }
  }

  private void set(int slot, SlotState next) {
    notActive += (slots[slot].phase() == Phase.ACTIVE ? 1 : 0) - (next.phase() == Phase.ACTIVE ? 1 : 0);
    slots[slot] = next;
    check(slot);
  }

  private void check(int slot) {
    SlotState s = slots[slot];
    if (s.phase() != Phase.ABSENT && s.ownerHint() != self) {
      throw new InvariantViolation("P2 slot " + slot + " is " + s.phase() + " in group " + self
          + " but names group " + s.ownerHint() + " as its holder");
    }
    if (s.phase() == Phase.ABSENT && s.ownerHint() == self) {
      throw new InvariantViolation("P2 slot " + slot + " is absent from group " + self
          + " but names it as its owner");
    }
  }
}
