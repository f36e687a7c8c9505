package dev.ration.protocol;

import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;

import java.util.List;

/**
 * Quota, reservation and usage requests (kinds 0x40–0x5F), carried as {@link Request.Quota}.
 * Encodings in {@link QuotaMessages} and docs/PROTOCOL.md. Mutations (QUOTA_SET, RESERVE,
 * RESERVATION_COMPLETE, RESERVATION_CANCEL, USAGE_INGEST, USAGE_ACK, USAGE_RECONCILE with
 * repair) are idempotent by (client id, frame request id), like every mutation.
 * Enumerations travel as their explicit one-byte codes ({@link QuotaKind}, {@link Window},
 * {@link Overage}).
 */
public sealed interface QuotaRequest {
  Kind kind();

  /**
   * Create or change a catalog entry. {@code spec.version()} is the version the caller last read
   * (0: any); {@code spec.changedAtMillis()} is not sent (the ledger stamps the change).
   */
  record SetQuota(QuotaSpec spec) implements QuotaRequest {
    public Kind kind() {
      return Kind.QUOTA_SET;
    }
  }

  record GetQuota(String scope, String resource, boolean stale) implements QuotaRequest {
    public Kind kind() {
      return Kind.QUOTA_GET;
    }
  }

  /** Entries at {@code scopePrefix} and below ("" = all). */
  record ListQuotas(String scopePrefix, boolean stale) implements QuotaRequest {
    public Kind kind() {
      return Kind.QUOTA_LIST;
    }
  }

  record QuotaHistory(String scope, String resource) implements QuotaRequest {
    public Kind kind() {
      return Kind.QUOTA_HISTORY;
    }
  }

  record Item(String resource, long amount) {}

  /** checkAndReserve; {@code configVersion} 0 = do not check. */
  record Reserve(String scope, List<Item> items, long configVersion, long ttlMillis)
      implements QuotaRequest {
    public Reserve {
      items = List.copyOf(items);
    }

    public Kind kind() {
      return Kind.RESERVE;
    }
  }

  /**
   * checkAndReserve under the application's {@code idempotencyKey} (1..max-name-bytes, scoped
   * to {@code scope}): the first decision is kept for the reservation's lifetime plus the
   * settled retention and returned to every request with the same key and arguments, from any
   * client; other arguments under the key are refused INVALID_ARGUMENT (docs/QUOTAS.md).
   */
  record ReserveKeyed(String idempotencyKey, String scope, List<Item> items, long configVersion,
      long ttlMillis) implements QuotaRequest {
    public ReserveKeyed {
      items = List.copyOf(items);
    }

    public Kind kind() {
      return Kind.RESERVE_KEYED;
    }
  }

  record CompleteReservation(long reservationId, List<Long> actuals) implements QuotaRequest {
    public CompleteReservation {
      actuals = List.copyOf(actuals);
    }

    public Kind kind() {
      return Kind.RESERVATION_COMPLETE;
    }
  }

  record CancelReservation(long reservationId) implements QuotaRequest {
    public Kind kind() {
      return Kind.RESERVATION_CANCEL;
    }
  }

  record ListReservations(String scopePrefix) implements QuotaRequest {
    public Kind kind() {
      return Kind.RESERVATION_LIST;
    }
  }

  record IngestUsage(String eventId, long eventTimeMillis, String scope, String resource,
      long quantity, String unit, long reservationId) implements QuotaRequest {
    public Kind kind() {
      return Kind.USAGE_INGEST;
    }
  }

  /** {@code fromSequence} 0 = just after {@code consumer}'s acknowledged cursor. */
  record ReadUsage(String consumer, long fromSequence, int max) implements QuotaRequest {
    public Kind kind() {
      return Kind.USAGE_READ;
    }
  }

  record AckUsage(String consumer, long sequence) implements QuotaRequest {
    public Kind kind() {
      return Kind.USAGE_ACK;
    }
  }

  record AggregateUsage(String scope, String resource, long fromMillis, long toMillis)
      implements QuotaRequest {
    public Kind kind() {
      return Kind.USAGE_AGGREGATE;
    }
  }

  /** {@code repair} false: a read-only report; true: a replicated repair (audited). */
  record Reconcile(String scope, String resource, long fromMillis, long toMillis, boolean repair,
      String actor, String reason) implements QuotaRequest {
    public Kind kind() {
      return Kind.USAGE_RECONCILE;
    }
  }

  record ReadAudit(long fromSequence, int max) implements QuotaRequest {
    public Kind kind() {
      return Kind.AUDIT_READ;
    }
  }

  /**
   * Lease {@code holder} a budget of up to {@code amount} of {@code resource}'s windowed quotas
   * at every level of {@code scope}, for {@code leaseMillis} (docs/QUOTAS.md, "Budgets and the quota limiter").
   */
  record GrantBudget(String holder, String scope, String resource, long amount, long leaseMillis)
      implements QuotaRequest {
    public Kind kind() {
      return Kind.BUDGET_GRANT;
    }
  }

  /**
   * One budget's report: its cumulative {@code spent} under report {@code sequence}, the total
   * it wants ({@code wantAmount}; a holder asking for less stops spending above it first) and
   * the lease to renew for.
   */
  record BudgetReport(long budgetId, long spent, long sequence, long wantAmount, long leaseMillis) {}

  /** Reports of up to 1,000 budgets, each judged and answered alone, in order. */
  record ReportBudgets(List<BudgetReport> reports) implements QuotaRequest {
    public ReportBudgets {
      reports = List.copyOf(reports);
    }

    public Kind kind() {
      return Kind.BUDGET_REPORT;
    }
  }

  /**
   * Up to 1,000 reservations, each judged and answered alone, in order: RESERVE_KEYED's fields,
   * the key "" for a reservation without one.
   */
  record ReserveBatch(List<ReserveKeyed> reserves) implements QuotaRequest {
    public ReserveBatch {
      reserves = List.copyOf(reserves);
    }

    public Kind kind() {
      return Kind.RESERVE_BATCH;
    }
  }

  /** The holder stopped spending from the budget; {@code spent} is its final cumulative spend. */
  record ReturnBudget(long budgetId, long spent, long sequence) implements QuotaRequest {
    public Kind kind() {
      return Kind.BUDGET_RETURN;
    }
  }

  /** Budgets (held, and lapsed ones still counted) at {@code scopePrefix} and below ("" = all). */
  record ListBudgets(String scopePrefix) implements QuotaRequest {
    public Kind kind() {
      return Kind.BUDGET_LIST;
    }
  }
}
