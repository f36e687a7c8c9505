package dev.ration.statemachine.placement;

/**
 * What one data group knows about one slot.
 *
 * @param phase whether the group serves the slot ({@link Phase#ACTIVE}), is handing it over or
 *     taking it over ({@link Phase#FROZEN}, {@link Phase#INACTIVE}), or does not hold it
 *     ({@link Phase#ABSENT})
 * @param epoch the move attempt this state belongs to (1 for a slot never moved): every attempt
 *     gets an epoch above all earlier ones of its slot, aborted ones included, so a command of an
 *     earlier attempt can never act on a later state
 * @param ownerHint for an absent slot, the group that owned it when this group last knew (the
 *     target it was handed to, or the source of an install that was dropped); -1 when none
 */
public record SlotState(Phase phase, long epoch, int ownerHint) {

  /** The phases of a slot in one group (docs/ARCHITECTURE.md, "Placement and moves"). */
  public enum Phase {
    /** Served here: commands for the slot apply. */
    ACTIVE(1),
    /** Being handed over: nothing for the slot applies here (refused as moving) until the move
     *  is decided: released (it moved) or unfrozen (it was aborted). */
    FROZEN(2),
    /** Installed here by a move not yet decided: refused as moving until activated. */
    INACTIVE(3),
    /** Not held here: refused with the owner this group last knew. */
    ABSENT(4);

    private final int code;

    Phase(int code) {
      this.code = code;
    }

    /** Its stable code in the store and in results. */
    public int code() {
      return code;
    }

    public static Phase fromCode(int code) {
      for (Phase p : values()) {
        if (p.code == code) {
          return p;
        }
      }
      throw new IllegalArgumentException("unknown slot phase code " + code);
    }
  }

  static final SlotState NEVER_HELD = new SlotState(Phase.ABSENT, 0, -1);
}
