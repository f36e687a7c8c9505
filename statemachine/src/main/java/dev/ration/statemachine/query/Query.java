package dev.ration.statemachine.query;

/** A read-only question to the state. Reads never change state and are not replicated. */
public sealed interface Query {
  /** One limit with its ledger; empty answer if unknown. */
  record GetLimit(String tenant, String resource) implements Query {}

  /** Every limit with its ledger, ordered by (tenant, resource). */
  record ListLimits() implements Query {}

  /** Leases of one limit, or of all limits when tenant and resource are empty; ordered by id. */
  record ListLeases(String tenant, String resource) implements Query {}

  /** Applied index, ledger clock, epoch, counts. */
  record Status() implements Query {}

  /** One live TTL entry (expiry judged at max(state now, readNowMillis)). */
  record GetEntry(String namespace, String key) implements Query {}

  /** Live entries of a namespace whose key starts with {@code prefix}, in key order. */
  record ListEntries(String namespace, String prefix, int limit) implements Query {}

  /** One namespace's capacity and counters. */
  record GetNamespace(String namespace) implements Query {}

  /** Every namespace, in name order (for metrics). */
  record ListNamespaces() implements Query {}

  /** One limit's concurrency cap, slot ledger and slot-holding leases; empty if unknown. */
  record GetSlots(String tenant, String resource) implements Query {}

  /** A question to the quota ledger. */
  record Quota(QuotaQuery query) implements Query {}

  /** Every token (without secret material), by id. */
  record ListTokens() implements Query {}

  /** The grants of {@code identity}, or of everyone when it is empty, in (identity, role, tenant) order. */
  record ListGrants(String identity) implements Query {}

  /** Security audit records from {@code fromSequence} on, at most {@code max}. */
  record ReadSecurityAudit(long fromSequence, int max) implements Query {}
}
