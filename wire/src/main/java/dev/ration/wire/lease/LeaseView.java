package dev.ration.wire.lease;

import static dev.ration.wire.shape.Fields.code;
import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.Mode;
import dev.ration.wire.shape.Shape;

/**
 * What a holder (or an operator) sees of a lease. {@code rateShare}/{@code burstShare} are the
 * shares of the current version; {@code countedRate}/{@code countedBurst} are what the ledger
 * still counts against the limit (larger while a shrink is unacknowledged); {@code countedUntilMillis}
 * is the ledger time at which the ledger stops counting the lease at all.
 */
public record LeaseView(
    long leaseId,
    String tenant,
    String resource,
    String holder,
    long epoch,
    long version,
    long rateShare,
    long burstShare,
    long countedRate,
    long countedBurst,
    long grantedAtMillis,
    long expiresAtMillis,
    long countedUntilMillis,
    Mode mode,
    long emergency,
    long leaseDurationMillis) {
  /**
   * The one encoding of this value, shared by the protocol and the log: both carry it in
   * this field order.
   */
  public static final Shape<LeaseView> SHAPE =
      Shape.of(
          LeaseView.class,
          i64("leaseId", LeaseView::leaseId),
          str("tenant", LeaseView::tenant),
          str("resource", LeaseView::resource),
          str("holder", LeaseView::holder),
          i64("epoch", LeaseView::epoch),
          i64("version", LeaseView::version),
          i64("rateShare", LeaseView::rateShare),
          i64("burstShare", LeaseView::burstShare),
          i64("countedRate", LeaseView::countedRate),
          i64("countedBurst", LeaseView::countedBurst),
          i64("grantedAtMillis", LeaseView::grantedAtMillis),
          i64("expiresAtMillis", LeaseView::expiresAtMillis),
          i64("countedUntilMillis", LeaseView::countedUntilMillis),
          code("mode", LeaseView::mode, Mode::fromCode, Mode::code),
          i64("emergency", LeaseView::emergency),
          i64("leaseDurationMillis", LeaseView::leaseDurationMillis));
}
