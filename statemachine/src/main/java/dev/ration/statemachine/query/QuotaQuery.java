package dev.ration.statemachine.query;

import dev.ration.statemachine.command.Touches;

/** Read-only questions to the quota ledger; answers are {@link QuotaAnswer}s. */
public sealed interface QuotaQuery {
  /** What this read looks at ({@link Query#touches()}). */
  Touches touches();

  /** A scope prefix's tenant ({@code scope or below it}), or every tenant for "". */
  private static Touches prefix(String scopePrefix) {
    return scopePrefix.isEmpty() ? Touches.cluster() : Touches.pathOf(scopePrefix);
  }

  /** The current entry of (scope, resource) and its usage. */
  record GetQuota(String scope, String resource) implements QuotaQuery {
    @Override
    public Touches touches() {
      return Touches.pathOf(scope);
    }
  }

  /** Current entries whose scope is {@code scopePrefix} or below it ("" = all), with usage. */
  record ListQuotas(String scopePrefix) implements QuotaQuery {
    @Override
    public Touches touches() {
      return prefix(scopePrefix);
    }
  }

  /** Every version of (scope, resource), oldest first. */
  record QuotaHistory(String scope, String resource) implements QuotaQuery {
    @Override
    public Touches touches() {
      return Touches.pathOf(scope);
    }
  }

  /** Audit records with sequence ≥ {@code fromSequence}, at most {@code max}. */
  record ReadAudit(long fromSequence, int max) implements QuotaQuery {
    @Override
    public Touches touches() {
      return Touches.cluster();
    }
  }

  /** Outstanding reservations of {@code scopePrefix} and below ("" = all), by id. */
  record ListReservations(String scopePrefix) implements QuotaQuery {
    @Override
    public Touches touches() {
      return prefix(scopePrefix);
    }
  }

  /** Budgets (held and lapsed) at or under {@code scopePrefix}, at most LIST_MAX. */
  record ListBudgets(String scopePrefix) implements QuotaQuery {
    @Override
    public Touches touches() {
      return prefix(scopePrefix);
    }
  }

  /**
   * Usage-log records from {@code fromSequence} (0 = just after {@code consumer}'s acknowledged
   * cursor), at most {@code max}.
   */
  record ReadUsage(String consumer, long fromSequence, int max) implements QuotaQuery {
    @Override
    public Touches touches() {
      return Touches.cluster();
    }
  }

  /** Hour buckets of (scope, resource) by event time in [fromMillis, toMillis). */
  record AggregateUsage(String scope, String resource, long fromMillis, long toMillis)
      implements QuotaQuery {
    @Override
    public Touches touches() {
      return Touches.pathOf(scope);
    }
  }

  /** What {@code Reconcile} would find, without repairing. */
  record ReconcileReport(String scope, String resource, long fromMillis, long toMillis)
      implements QuotaQuery {
    @Override
    public Touches touches() {
      return Touches.pathOf(scope);
    }
  }

  /** Counters of the quota ledger. */
  record QuotaStatus() implements QuotaQuery {
    @Override
    public Touches touches() {
      return Touches.cluster();
    }
  }
}
