package dev.ration.statemachine.command;

import static dev.ration.wire.shape.Fields.i32;
import static dev.ration.wire.shape.Fields.i64;

import dev.ration.wire.shape.Fields;
import dev.ration.wire.shape.Shape;

/**
 * A data group's part in moving a slot between groups: the step the directory's mover tells
 * this group to take, applied to the group's slot table
 * ({@link dev.ration.statemachine.placement.GroupSlots}). Codes 80-89 of the log format.
 *
 * <p>Proposed by the node itself (no client sends one: {@link #fromClient()} is false, and an
 * authorized wrapper refuses it). Every step names its attempt's epoch; a step that does not
 * fit the slot's phase and epoch is refused and changes nothing, and the step that already
 * happened answers as done, so the mover retries freely.
 */
public sealed interface PlacementCommand extends Command {

  @Override
  default Class<PlacementCommand> family() {
    return PlacementCommand.class;
  }

  @Override
  default boolean fromClient() {
    return false;
  }

  /** The steps, by their stable codes. */
  enum Step {
    /** Source: stop serving the slot (refused as moving from here on). */
    FREEZE(1),
    /** Source, after an abort: serve it again. */
    UNFREEZE(2),
    /** Source, after the flip: the slot now belongs to {@code other}. */
    RELEASE(3),
    /** Target: hold the source's export, unserved. */
    INSTALL(4),
    /** Target, after the flip: serve the slot. */
    ACTIVATE(5),
    /** Target, after an abort: forget the copy; the slot stays with {@code other}. */
    DROP(6);

    private final int code;

    Step(int code) {
      this.code = code;
    }

    public int code() {
      return code;
    }

    public static Step fromCode(int code) {
      for (Step s : values()) {
        if (s.code == code) {
          return s;
        }
      }
      throw new IllegalArgumentException("unknown slot step code " + code);
    }
  }

  /**
   * Take {@code step} for {@code slot} in move attempt {@code epoch}; {@code other} is the
   * target of a release and the source of a drop (-1 for the other steps).
   */
  record SlotStep(Step step, int slot, long epoch, int other) implements PlacementCommand {
    public static final int CODE = 80;

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<SlotStep> SHAPE =
        Shape.of(
            SlotStep.class,
            Fields.code("step", SlotStep::step, Step::fromCode, Step::code),
            i32("slot", SlotStep::slot),
            i64("epoch", SlotStep::epoch),
            i32("other", SlotStep::other));

    /** Placement is the group's own state, of no tenant: never refused as misrouted (a frozen
     *  slot must still take its next step). */
    @Override
    public Touches touches() {
      return Touches.cluster();
    }

    @Override
    public int code() {
      return CODE;
    }
  }
}
