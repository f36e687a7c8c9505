package dev.ration.statemachine.query;

/** Read-only questions to the quota ledger; answers are {@link QuotaAnswer}s. */
public sealed interface QuotaQuery {
  /** The current entry of (scope, resource) and its usage. */
  record GetQuota(String scope, String resource) implements QuotaQuery {}

  /** Current entries whose scope is {@code scopePrefix} or below it ("" = all), with usage. */
  record ListQuotas(String scopePrefix) implements QuotaQuery {}

  /** Every version of (scope, resource), oldest first. */
  record QuotaHistory(String scope, String resource) implements QuotaQuery {}

  /** Audit records with sequence ≥ {@code fromSequence}, at most {@code max}. */
  record ReadAudit(long fromSequence, int max) implements QuotaQuery {}

  /** Outstanding reservations of {@code scopePrefix} and below ("" = all), by id. */
  record ListReservations(String scopePrefix) implements QuotaQuery {}

  /** Budgets (held and lapsed) at or under {@code scopePrefix}, at most LIST_MAX. */
  record ListBudgets(String scopePrefix) implements QuotaQuery {}

  /**
   * Usage-log records from {@code fromSequence} (0 = just after {@code consumer}'s acknowledged
   * cursor), at most {@code max}.
   */
  record ReadUsage(String consumer, long fromSequence, int max) implements QuotaQuery {}

  /** Hour buckets of (scope, resource) by event time in [fromMillis, toMillis). */
  record AggregateUsage(String scope, String resource, long fromMillis, long toMillis)
      implements QuotaQuery {}

  /** What {@code Reconcile} would find, without repairing. */
  record ReconcileReport(String scope, String resource, long fromMillis, long toMillis)
      implements QuotaQuery {}

  /** Counters of the quota ledger. */
  record QuotaStatus() implements QuotaQuery {}
}
