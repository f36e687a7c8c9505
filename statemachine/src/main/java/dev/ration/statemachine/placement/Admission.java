package dev.ration.statemachine.placement;

/**
 * Whether a data group applies a command for a slot, decided at apply time from its own
 * replicated {@link GroupSlots}, so every replica decides the same and a proposal that was in
 * flight while its slot moved is refused rather than applied in the wrong group.
 */
public sealed interface Admission {

  /** The slot is served here. */
  record Admitted() implements Admission {}

  /** The slot is being moved into or out of this group: retry shortly (the answer is definite:
   *  nothing was applied). */
  record Moving(int slot, long epoch) implements Admission {}

  /** The slot is not served here; {@code ownerHint} is the group this one last knew to own it
   *  (-1: none known), at {@code epoch}: ask the directory when the hint is stale. */
  record WrongGroup(int slot, int ownerHint, long epoch) implements Admission {}

  Admission ADMITTED = new Admitted();
}
