package dev.ration.wire.quota;

import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.shape.Shape;

/**
 * One line of the audit log: every catalog change and every reconciliation repair, with who,
 * when (ledger time) and why. {@code version} is the catalog version a change made (0 for
 * actions that are not catalog changes).
 */
public record AuditRecord(
    long sequence,
    long atMillis,
    String actor,
    String action,
    String scope,
    String resource,
    long version,
    String reason,
    String detail) {
  /** Its one encoding: the protocol's answers carry it in this field order. */
  public static final Shape<AuditRecord> SHAPE =
      Shape.of(
          AuditRecord.class,
          i64("sequence", AuditRecord::sequence),
          i64("atMillis", AuditRecord::atMillis),
          str("actor", AuditRecord::actor),
          str("action", AuditRecord::action),
          str("scope", AuditRecord::scope),
          str("resource", AuditRecord::resource),
          i64("version", AuditRecord::version),
          str("reason", AuditRecord::reason),
          str("detail", AuditRecord::detail));
}
