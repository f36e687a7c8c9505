package dev.ration.client.quota;

import dev.ration.client.time.LedgerTime;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One difference a reconciliation found between what the ledger's records imply and what its
 * usage log or aggregates say.
 *
 * @param kind what was compared
 * @param scope the scope level
 * @param resource the resource
 * @param reservation for {@link Kind#RESERVATION}, the reservation; empty otherwise
 * @param bucket for {@link Kind#AGGREGATE}, the start of the hour bucket (ledger time); empty
 *     otherwise
 * @param expected what the records imply
 * @param recorded what was recorded
 * @param compensation after a repair, the sequence of the compensating usage record
 */
public record UsageDrift(Kind kind, String scope, String resource, OptionalLong reservation,
    Optional<LedgerTime> bucket, long expected, long recorded, OptionalLong compensation) {
  /** What a drift compares. */
  public enum Kind {
    /** A settled reservation against the usage records it produced. */
    RESERVATION,
    /** An hour aggregate against the sum of the usage records in its hour. */
    AGGREGATE
  }
}
