package dev.ration.client.quota;

import dev.ration.client.time.LedgerTime;

/**
 * One record of the quota audit log: a catalog change or a reconciliation repair, with who,
 * when and why.
 *
 * @param sequence the record's place in the audit log, from 1
 * @param at when it was applied (ledger time)
 * @param actor who made the change (the caller's identity in secure mode, else as given)
 * @param action what was done ({@code quota.set}, {@code usage.reconcile}, and the security changes of an administrator)
 * @param scope the scope path concerned
 * @param resource the resource concerned
 * @param version the catalog entry's version after the change (0 when none)
 * @param reason the reason given with the change
 * @param detail the change itself, as text
 */
public record AuditEntry(long sequence, LedgerTime at, String actor, String action, String scope,
    String resource, long version, String reason, String detail) {}
