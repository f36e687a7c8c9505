package dev.ration.client.quota;

/** The calls of {@link QuotaClient}, as {@link QuotaListener}s and metrics name them. */
public enum QuotaOperation {
  /** A reserve, keyed or not, value form or try-with-resources. */
  RESERVE,
  /** {@link QuotaClient#tryReserveAll}: many reservations in one request. */
  RESERVE_BATCH,
  /** {@link QuotaClient#complete}, and a {@link Reservation} completing. */
  COMPLETE,
  /** {@link QuotaClient#cancel}, and a {@link Reservation} cancelling. */
  CANCEL,
  /** {@link QuotaClient#setQuota}. */
  SET_QUOTA,
  /** {@link QuotaClient#getQuota}. */
  GET_QUOTA,
  /** {@link QuotaClient#listQuotas}. */
  LIST_QUOTAS,
  /** {@link QuotaClient#quotaHistory}. */
  QUOTA_HISTORY,
  /** {@link QuotaClient#ingestUsage}. */
  INGEST_USAGE,
  /** {@link QuotaClient#readUsage}. */
  READ_USAGE,
  /** {@link QuotaClient#ackUsage}. */
  ACK_USAGE,
  /** {@link QuotaClient#aggregateUsage}. */
  AGGREGATE_USAGE,
  /** {@link QuotaClient#reconcile} and {@link QuotaClient#repair}. */
  RECONCILE,
  /** {@link QuotaClient#readAudit}. */
  READ_AUDIT,
  /** {@link QuotaClient#grantBudget}, and a {@link QuotaLimiter} taking a budget. */
  GRANT_BUDGET,
  /** {@link QuotaClient#reportBudgets}, and a {@link QuotaLimiter}'s renewals. */
  REPORT_BUDGETS,
  /** {@link QuotaClient#returnBudget}, and a {@link QuotaLimiter} giving a budget back. */
  RETURN_BUDGET,
  /** {@link QuotaClient#listBudgets}. */
  LIST_BUDGETS
}
