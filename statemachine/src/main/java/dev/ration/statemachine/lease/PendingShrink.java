package dev.ration.statemachine.lease;

/**
 * The pending part of a two-phase shrink, as a renewal works on it: the largest shares of
 * versions the holder has not acknowledged yet (rate, burst, slots), counted until
 * {@code untilMillis}. Nothing pending is all three 0.
 *
 * <p>A value; used on the single applying thread. Invariant: every amount ≥ 0.
 */
record PendingShrink(long rate, long burst, long slots, long untilMillis) {
  static final PendingShrink NONE = new PendingShrink(0, 0, 0, 0);

  /** What {@code lease} still counts of unacknowledged versions. */
  static PendingShrink of(Lease lease) {
    return new PendingShrink(lease.pendingRate(), lease.pendingBurst(), lease.pendingSlots(),
        lease.pendingUntilMillis());
  }

  boolean any() {
    return rate != 0 || burst != 0 || slots != 0;
  }

  PendingShrink until(long millis) {
    return new PendingShrink(rate, burst, slots, millis);
  }
}
