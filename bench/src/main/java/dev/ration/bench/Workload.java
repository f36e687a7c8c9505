package dev.ration.bench;

import java.util.Locale;

/** The operation mix of a run: only acquires, only renewals, or renewals with a ratio. */
public enum Workload {
  ACQUIRE,
  RENEW,
  MIXED,
  // Run by KeyLoopBench, not by LoadGenerator; given as --op ttl-put / ttl-get / limit-get /
  // quota-get
  TTL_PUT,
  TTL_GET,
  LIMIT_GET,
  QUOTA_GET,
  // Run by ReserveBench; given as --op reserve
  RESERVE,
  // Run by RenewBatchBench; given as --op renew-batch
  RENEW_BATCH,
  // Run by RenewBatchBench with slot leases; given as --op renew-slots
  RENEW_SLOTS,
  // Run by WarmStartBench; given as --op warm-start
  WARM_START,
  // Run by SaturationBench; given as --op saturation
  SATURATION,
  // Run by RebalanceBench; given as --op rebalance
  REBALANCE,
  // Run by NearCacheBench; given as --op near-cache
  NEAR_CACHE,
  // Run by QuotaBudgetBench; given as --op quota-reserve / quota-budget
  QUOTA_RESERVE,
  QUOTA_BUDGET,
  // Run by BudgetHoldersBench; given as --op budget-holders
  BUDGET_HOLDERS;

  /** Whether KeyLoopBench runs this workload. */
  public boolean isKeyLoop() {
    return this == TTL_PUT || this == TTL_GET || this == LIMIT_GET || this == QUOTA_GET;
  }

  /** The workload's name as {@code --op} takes it: {@code ttl-get}, {@code limit-get}, ... */
  public String option() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Whether slots hold a lease of their own that they renew. */
  boolean holdsLeases() {
    return this != ACQUIRE;
  }
}
