package dev.ration.wire.placement;

/**
 * Ids of objects a caller names by id alone (leases, reservations, budgets) carry the slot of
 * the tenant that owns them, so whoever holds only the id can tell where the object lives: a
 * client routes a renewal or a completion to the group serving that slot, and a group that no
 * longer serves it answers WRONG_GROUP rather than "unknown".
 *
 * <p>Layout of a slotted id: bit 52 set, bits 8–51 a counter of the group that minted it, bits
 * 0–7 the slot. Every id stays below 2^53, so JSON tools that read numbers as doubles (jq,
 * JavaScript) keep it exact; 2^44 counters are 55 years of 10,000 grants a second. A group's
 * counter only grows, and a group taking over a slot raises its counter above the source's, so
 * an id is never minted twice for one slot. Ids written before slots existed (below 2^52)
 * carry no slot: {@link #slotOf} says so and their tenant is found by looking the object up.
 * The layout is part of the stored format.
 */
public final class SlotIds {
  private static final long FLAG = 1L << 52;
  private static final int SLOT_BITS = 8;
  /** The largest counter a slotted id can carry. */
  public static final long MAX_COUNTER = (FLAG >>> SLOT_BITS) - 1;

  static {
    if (Slots.COUNT != 1 << SLOT_BITS) {
      throw new AssertionError("slotted ids hold " + SLOT_BITS + " bits of slot, not " + Slots.COUNT + " slots");
    }
  }

  private SlotIds() {}

  /** The id minted from {@code counter} (at least 1) for an object of a tenant in {@code slot}. */
  public static long of(long counter, int slot) {
    if (counter < 1 || counter > MAX_COUNTER) {
      throw new IllegalArgumentException("id counter " + counter + " not in [1, " + MAX_COUNTER + "]");
    }
    return FLAG | counter << SLOT_BITS | Slots.check(slot);
  }

  /**
   * A ledger's stored id counter says which ids it mints: a plain counter {@code n} (below 2^52)
   * mints id {@code n} itself, as before ids carried slots; once the log switched it
   * ({@link #slottedCounter}) it is 2^52 + n and mints {@code of(n, slot)}. Keeping the mode in
   * the counter keeps the stored format; the counter part continues across the switch, so every
   * slotted id's counter is above every plain id minted before.
   */
  public static long mint(long storedCounter, int slot) {
    return storedCounter >= FLAG ? of(storedCounter - FLAG, slot) : storedCounter;
  }

  /** The counter part of a stored counter: the next counter an id is minted from. */
  public static long counterPart(long storedCounter) {
    return storedCounter >= FLAG ? storedCounter - FLAG : storedCounter;
  }

  /** The stored counter that mints slotted ids from the same counter part on. */
  public static long slottedCounter(long storedCounter) {
    return storedCounter >= FLAG ? storedCounter : FLAG + storedCounter;
  }

  /** Whether {@code id} carries a slot (an id from before slots existed does not). */
  public static boolean slotted(long id) {
    return id > 0 && (id & FLAG) != 0;
  }

  /** The slot {@code id} carries, or -1 for an id that carries none. */
  public static int slotOf(long id) {
    return slotted(id) ? (int) (id & (Slots.COUNT - 1)) : -1;
  }

  /**
   * The counter {@code id} was minted from: its counter part for a slotted id, the id itself
   * for an id from before slots existed (which counted 1, 2, ... in the same counter).
   */
  public static long counterOf(long id) {
    return slotted(id) ? (id & ~FLAG) >>> SLOT_BITS : id;
  }
}
