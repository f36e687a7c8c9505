package dev.ration.wire.quota;

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
    String detail) {}
