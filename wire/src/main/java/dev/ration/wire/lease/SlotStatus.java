package dev.ration.wire.lease;

import static dev.ration.wire.shape.Fields.i32;
import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.shape.Shape;

/**
 * A limit's concurrency cap and its slot ledger: the cap C (0: none), the limit's config
 * version, Σ counted and Σ granted slots over its leases, the slot ceiling (C except while a
 * lowered cap is being absorbed), Σ of the slot demand (running + queued jobs) last reported by
 * its live holders, the leases holding or counting slots, and their unacknowledged slot shrinks.
 */
public record SlotStatus(
    String tenant,
    String resource,
    long concurrency,
    long version,
    long countedSlots,
    long grantedSlots,
    long slotCeiling,
    long demandSlots,
    int slotLeases,
    int pendingSlotShrinks) {
  /** The one encoding of this value, shared by the protocol and the log. */
  public static final Shape<SlotStatus> SHAPE =
      Shape.of(
          SlotStatus.class,
          str("tenant", SlotStatus::tenant),
          str("resource", SlotStatus::resource),
          i64("concurrency", SlotStatus::concurrency),
          i64("version", SlotStatus::version),
          i64("countedSlots", SlotStatus::countedSlots),
          i64("grantedSlots", SlotStatus::grantedSlots),
          i64("slotCeiling", SlotStatus::slotCeiling),
          i64("demandSlots", SlotStatus::demandSlots),
          i32("slotLeases", SlotStatus::slotLeases),
          i32("pendingSlotShrinks", SlotStatus::pendingSlotShrinks));
}
