package dev.ration.statemachine.placement;

import dev.ration.statemachine.InvariantViolation;
import dev.ration.wire.placement.Slots;
import java.util.Arrays;
import java.util.Optional;

/**
 * The directory group's placement: for every slot, the data group that owns it, the epoch of
 * that ownership and the last epoch any attempt to move it was given, and the one move in
 * progress, if any. Each attempt gets an epoch above every earlier one of its slot, aborted ones
 * included, so the groups can tell the commands of two attempts apart ({@link GroupSlots}). A move is decided here and only here:
 * {@link #flip} and {@link #abort} are mutually exclusive entries of one log, so a move's outcome
 * is never decided twice (the lesson of split-brain merges elsewhere: the decision lives in one
 * log). One mover at a time: a second {@link #begin} is refused until the first has
 * {@link #finish}ed or been aborted.
 *
 * <p>Phases of the move: PREPARING (source freezing, target installing; abort allowed), then
 * FLIPPED (owner and epoch already changed; target activating, source releasing; no abort), then
 * none.
 *
 * <p>Thread: the applying thread.
 */
public final class SlotDirectory {
  /** A move attempt in progress: {@code slot} from {@code source} to {@code target}, numbered
   *  {@code epoch}. */
  public record Move(int slot, int source, int target, long epoch, boolean flipped) {}

  private final int groups;
  private final int[] owner = new int[Slots.COUNT];
  private final long[] ownerEpoch = new long[Slots.COUNT];
  private final long[] lastEpoch = new long[Slots.COUNT];
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
    move = new Move(slot, owner[slot], target, lastEpoch[slot], false);
    return Optional.empty();
  }

  /** Decides the move of {@code slot} at {@code moveEpoch}: its owner is now the target. */
  public Optional<String> flip(int slot, long moveEpoch) {
    if (move != null && move.slot() == slot && move.epoch() == moveEpoch && move.flipped()) {
      return Optional.empty();
    }
    Optional<String> wrong = current(slot, moveEpoch, "flip");
    if (wrong.isPresent()) {
      return wrong;
    }
    owner[slot] = move.target();
    ownerEpoch[slot] = moveEpoch;
    move = new Move(slot, move.source(), move.target(), moveEpoch, true);
    return Optional.empty();
  }

  /** Decides the move of {@code slot} at {@code moveEpoch} the other way: it stays. */
  public Optional<String> abort(int slot, long moveEpoch) {
    Optional<String> wrong = current(slot, moveEpoch, "abort");
    if (wrong.isPresent()) {
      return wrong;
    }
    move = null;
    return Optional.empty();
  }

  /** Ends a flipped move once the target serves the slot and the source has released it. */
  public Optional<String> finish(int slot, long moveEpoch) {
    if (move == null || move.slot() != slot || move.epoch() != moveEpoch || !move.flipped()) {
      return Optional.of("no flipped move of slot " + slot + " at epoch " + moveEpoch
          + " to finish (move: " + move + ")");
    }
    move = null;
    return Optional.empty();
  }

  /** Refusal unless the move in progress is {@code slot}'s at {@code moveEpoch}, not flipped. */
  private Optional<String> current(int slot, long moveEpoch, String what) {
    Slots.check(slot);
    if (move == null || move.slot() != slot || move.epoch() != moveEpoch) {
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
