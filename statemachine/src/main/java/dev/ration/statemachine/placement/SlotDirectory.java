package dev.ration.statemachine.placement;

import dev.ration.statemachine.InvariantViolation;
import dev.ration.statemachine.placement.SlotState.Phase;
import dev.ration.wire.placement.Slots;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * The directory group's placement: for every slot, the data group that owns it, the epoch of
 * that ownership and the last epoch any attempt to move it was given, and the one move in
 * progress, if any. Each attempt gets an epoch above every earlier one of its slot, aborted ones
 * included, so the groups can tell the commands of two attempts apart ({@link GroupSlots}).
 *
 * <p>A move is decided here and only here: {@link #flip} and {@link #abort} are mutually
 * exclusive entries of one log, so an attempt's outcome is never decided twice. The mover records
 * each step it saw a group apply ({@link #acknowledge}, naming the group, which must be the
 * attempt's source or target as the step requires), and the directory flips only an attempt
 * whose source froze and whose target installed, and finishes only one whose target activated
 * and whose source released. What remains the mover's obligation: it sends activate and release
 * only after a flip it saw succeed, and unfreeze and drop only after an abort it saw succeed or
 * as {@link #repair} says. One mover at a time: a second {@link #begin} is refused until the
 * first has finished or been aborted. A repeated flip, abort or finish of an attempt answers as
 * done.
 *
 * <p>Phases of the move: PREPARING (source freezing, target installing; abort allowed), then
 * FLIPPED (owner and epoch already changed; target activating, source releasing; no abort), then
 * none. {@link #repair} says what a group's leftover of an attempt no longer in progress needs.
 *
 * <p>Thread: the applying thread.
 */
public final class SlotDirectory {
  /** A group's step of a move attempt, as the mover saw it applied. */
  public enum Step { FROZEN, INSTALLED, ACTIVATED, RELEASED }

  /** A move attempt in progress: {@code slot} from {@code source} to {@code target}, numbered
   *  {@code epoch}, with the steps acknowledged so far. */
  public record Move(int slot, int source, int target, long epoch, boolean flipped, Set<Step> acknowledged) {
    public Move {
      acknowledged = Set.copyOf(acknowledged);
    }
  }

  /** What a leftover of an attempt no longer in progress needs, in the group that holds it. */
  public enum Repair { UNFREEZE, RELEASE, ACTIVATE, DROP }

  private final int groups;
  private final int[] owner = new int[Slots.COUNT];
  private final long[] ownerEpoch = new long[Slots.COUNT];
  private final long[] lastEpoch = new long[Slots.COUNT];
  /** The last attempt of each slot that was aborted (0: none). */
  private final long[] abortedEpoch = new long[Slots.COUNT];
  private Move move;

  /** {@code groups} data groups, numbered from 0; every slot starts in group 0 at epoch 1. */
  public SlotDirectory(int groups) {
    if (groups < 1) {
      throw new IllegalArgumentException("a directory needs at least one data group, not " + groups);
    }
    this.groups = groups;
    Arrays.fill(owner, 0);
    Arrays.fill(ownerEpoch, 1);
    Arrays.fill(lastEpoch, 1);
  }

  public int groups() {
    return groups;
  }

  public int owner(int slot) {
    return owner[Slots.check(slot)];
  }

  /** The epoch of the attempt that gave {@code slot} to its owner (1: never moved). */
  public long ownerEpoch(int slot) {
    return ownerEpoch[Slots.check(slot)];
  }

  public Optional<Move> move() {
    return Optional.ofNullable(move);
  }

  /** Starts moving {@code slot} to group {@code target}. */
  public Optional<String> begin(int slot, int target) {
    Slots.check(slot);
    if (move != null) {
      return Optional.of("a move is in progress (slot " + move.slot() + " from group "
          + move.source() + " to " + move.target() + "): one mover at a time");
    }
    if (target < 0 || target >= groups) {
      return Optional.of("no data group " + target + " (groups 0.." + (groups - 1) + ")");
    }
    if (owner[slot] == target) {
      return Optional.of("slot " + slot + " is already in group " + target);
    }
    lastEpoch[slot]++;
    move = new Move(slot, owner[slot], target, lastEpoch[slot], false, Set.of());
    return Optional.empty();
  }

  /** Records that {@code group} applied {@code step} of the attempt of {@code slot} at {@code moveEpoch}. */
  public Optional<String> acknowledge(int group, int slot, long moveEpoch, Step step) {
    if (!inProgress(slot, moveEpoch)) {
      return Optional.of("no move of slot " + slot + " at epoch " + moveEpoch + " in progress"
          + " (move: " + move + ")");
    }
    int expected = step == Step.FROZEN || step == Step.RELEASED ? move.source() : move.target();
    if (group != expected) {
      return Optional.of(step + " of slot " + slot + " at epoch " + moveEpoch + " is group "
          + expected + "'s step, not group " + group + "'s");
    }
    boolean beforeFlip = step == Step.FROZEN || step == Step.INSTALLED;
    if (beforeFlip == move.flipped()) {
      return Optional.of(step + " belongs " + (beforeFlip ? "before" : "after") + " the flip of"
          + " slot " + slot + " at epoch " + moveEpoch);
    }
    EnumSet<Step> steps = EnumSet.of(step);
    steps.addAll(move.acknowledged());
    move = new Move(slot, move.source(), move.target(), moveEpoch, move.flipped(), steps);
    return Optional.empty();
  }

  /** Decides the attempt of {@code slot} at {@code moveEpoch}: its owner is now the target. */
  public Optional<String> flip(int slot, long moveEpoch) {
    if (inProgress(slot, moveEpoch) && move.flipped()) {
      return Optional.empty();
    }
    Optional<String> wrong = preparing(slot, moveEpoch, "flip");
    if (wrong.isPresent()) {
      return wrong;
    }
    if (!move.acknowledged().containsAll(EnumSet.of(Step.FROZEN, Step.INSTALLED))) {
      return Optional.of("slot " + slot + " at epoch " + moveEpoch + " cannot flip before its"
          + " source froze and its target installed (acknowledged: " + move.acknowledged() + ")");
    }
    owner[slot] = move.target();
    ownerEpoch[slot] = moveEpoch;
    move = new Move(slot, move.source(), move.target(), moveEpoch, true, Set.of());
    return Optional.empty();
  }

  /** Decides the attempt of {@code slot} at {@code moveEpoch} the other way: it stays. */
  public Optional<String> abort(int slot, long moveEpoch) {
    if (!inProgress(slot, moveEpoch) && abortedEpoch[slot] == moveEpoch) {
      return Optional.empty();
    }
    Optional<String> wrong = preparing(slot, moveEpoch, "abort");
    if (wrong.isPresent()) {
      return wrong;
    }
    abortedEpoch[slot] = moveEpoch;
    move = null;
    return Optional.empty();
  }

  /** Ends a flipped attempt once its target activated and its source released the slot. */
  public Optional<String> finish(int slot, long moveEpoch) {
    if (!inProgress(slot, moveEpoch) && ownerEpoch[slot] == moveEpoch) {
      return Optional.empty();
    }
    if (!inProgress(slot, moveEpoch) || !move.flipped()) {
      return Optional.of("no flipped move of slot " + slot + " at epoch " + moveEpoch
          + " to finish (move: " + move + ")");
    }
    if (!move.acknowledged().containsAll(EnumSet.of(Step.ACTIVATED, Step.RELEASED))) {
      return Optional.of("slot " + slot + " at epoch " + moveEpoch + " cannot finish before its"
          + " target activated and its source released (acknowledged: " + move.acknowledged() + ")");
    }
    move = null;
    return Optional.empty();
  }

  /**
   * What {@code group}'s state {@code s} of {@code slot} needs when it belongs to an attempt that
   * is not in progress (a step applied after its mover gave up on it, or one the mover did not
   * get to): a frozen source of an attempt that flipped releases to the owner, of one that did
   * not, thaws; an installed target of an attempt that flipped to it activates, else drops.
   * Empty when nothing is left over (or the attempt is still in progress: its mover goes on).
   */
  public Optional<Repair> repair(int group, int slot, SlotState s) {
    if (s.phase() != Phase.FROZEN && s.phase() != Phase.INACTIVE) {
      return Optional.empty();
    }
    if (inProgress(slot, s.epoch())) {
      return Optional.empty();
    }
    if (s.epoch() > lastEpoch[slot] || s.epoch() < ownerEpoch[slot] && s.phase() == Phase.FROZEN) {
      // A frozen source older than the slot's ownership would be thawed beside the owner: no
      // step sequence the groups accept leaves one (a later attempt needs it active or absent).
      throw new InvariantViolation("P1 group " + group + " holds slot " + slot + " " + s
          + " but the directory's last attempt is " + lastEpoch[slot] + " and its owner "
          + owner[slot] + " since " + ownerEpoch[slot]);
    }
    boolean flippedHere = ownerEpoch[slot] == s.epoch();
    if (s.phase() == Phase.FROZEN) {
      return Optional.of(flippedHere ? Repair.RELEASE : Repair.UNFREEZE);
    }
    return Optional.of(flippedHere && owner[slot] == group ? Repair.ACTIVATE : Repair.DROP);
  }

  private boolean inProgress(int slot, long moveEpoch) {
    Slots.check(slot);
    return move != null && move.slot() == slot && move.epoch() == moveEpoch;
  }

  /** Refusal unless the move in progress is {@code slot}'s at {@code moveEpoch}, not flipped. */
  private Optional<String> preparing(int slot, long moveEpoch, String what) {
    if (!inProgress(slot, moveEpoch)) {
      return Optional.of("no move of slot " + slot + " at epoch " + moveEpoch + " to " + what
          + " (move: " + move + ")");
    }
    if (move.flipped()) {
      return Optional.of("the move of slot " + slot + " at epoch " + moveEpoch
          + " is already flipped: it can only be finished");
    }
    if (lastEpoch[slot] != moveEpoch || owner[slot] != move.source()) {
      throw new InvariantViolation("P3 move " + move + " is not the last attempt of slot " + slot
          + " from its owner (owner " + owner[slot] + ", last epoch " + lastEpoch[slot] + ")");
    }
    return Optional.empty();
  }
}
