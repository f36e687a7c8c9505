package dev.ration.wire.lease;

import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.shape.Shape;

/**
 * What a holder (or an operator) sees of a lease's concurrency slots: the current version's
 * {@code slotShare}, the {@code countedSlots} the ledger still counts against the cap C (larger
 * while a shrink is unacknowledged), and the lease's times. A holder runs at most
 * {@code slotShare} jobs at once, and none at or after its own local expiry.
 */
public record SlotLease(
    long leaseId,
    String tenant,
    String resource,
    String holder,
    long epoch,
    long version,
    long slotShare,
    long countedSlots,
    long grantedAtMillis,
    long expiresAtMillis,
    long countedUntilMillis,
    long leaseDurationMillis) {
  /** The one encoding of this value, shared by the protocol and the log. */
  public static final Shape<SlotLease> SHAPE =
      Shape.of(
          SlotLease.class,
          i64("leaseId", SlotLease::leaseId),
          str("tenant", SlotLease::tenant),
          str("resource", SlotLease::resource),
          str("holder", SlotLease::holder),
          i64("epoch", SlotLease::epoch),
          i64("version", SlotLease::version),
          i64("slotShare", SlotLease::slotShare),
          i64("countedSlots", SlotLease::countedSlots),
          i64("grantedAtMillis", SlotLease::grantedAtMillis),
          i64("expiresAtMillis", SlotLease::expiresAtMillis),
          i64("countedUntilMillis", SlotLease::countedUntilMillis),
          i64("leaseDurationMillis", SlotLease::leaseDurationMillis));
}
