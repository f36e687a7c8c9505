package dev.ration.protocol;

import dev.ration.wire.EventType;
import dev.ration.wire.quota.AuditRecord;
import dev.ration.wire.quota.Drift;
import dev.ration.wire.quota.Aggregate;
import dev.ration.wire.quota.UsageEvent;
import dev.ration.wire.Outcome;
import dev.ration.wire.quota.QuotaSpec;

import java.util.List;
import java.util.Optional;

/**
 * Replies to {@link QuotaRequest}s, carried as {@link Response.Quota}. Domain refusals are
 * values (an {@link Outcome} with its message), never protocol errors.
 */
public sealed interface QuotaResponse {

  /**
   * A catalog entry with its usage as of the read (windows rolled). On the wire the spec's
   * fields come first, flat, then the usage figures.
   */
  record QuotaInfo(QuotaSpec spec, long windowStartMillis, long windowUsed, long held,
      long allocated, boolean alerted) {}

  /** {@code overage}: the billable part of {@code amount}. */
  record ReservedItem(String resource, long amount, long overage, String unit) {}

  record ReservationInfo(long reservationId, String scope, long configVersion,
      long createdAtMillis, long expiresAtMillis, List<ReservedItem> items) {
    public ReservationInfo {
      items = List.copyOf(items);
    }
  }

  /** QUOTA_SET: on SUCCESS the new version; on STALE_CONFIG {@code currentVersion}. */
  record QuotaSetReply(Outcome outcome, String message, long currentVersion,
      Optional<QuotaInfo> quota) implements QuotaResponse, OutcomeReply {}

  record QuotaFound(Optional<QuotaInfo> quota) implements QuotaResponse {}

  /** QUOTA_LIST and QUOTA_HISTORY. */
  record QuotaList(List<QuotaInfo> quotas) implements QuotaResponse {
    public QuotaList {
      quotas = List.copyOf(quotas);
    }
  }

  /**
   * RESERVE. On SUCCESS the reservation; otherwise the refusing level ({@code levelScope},
   * {@code resource}), {@code retryAfterMillis} (0 = unknown: use a bounded retry policy) and,
   * for STALE_CONFIG, {@code currentVersion}.
   */
  record ReserveReply(Outcome outcome, String message, String levelScope, String resource,
      long retryAfterMillis, long currentVersion, long reservationId, long expiresAtMillis,
      long configVersion, List<ReservedItem> items) implements QuotaResponse, OutcomeReply {
    public ReserveReply {
      items = List.copyOf(items);
    }
  }

  /**
   * RESERVATION_COMPLETE and RESERVATION_CANCEL; {@code how} is COMPLETED or CANCELLED, null
   * when the settlement was refused.
   */
  record SettleReply(Outcome outcome, String message, long reservationId, EventType how,
      List<Long> quantities, List<Long> eventSequences, boolean alreadySettled)
      implements QuotaResponse, OutcomeReply {
    public SettleReply {
      quantities = List.copyOf(quantities);
      eventSequences = List.copyOf(eventSequences);
    }
  }

  record ReservationList(List<ReservationInfo> reservations) implements QuotaResponse {
    public ReservationList {
      reservations = List.copyOf(reservations);
    }
  }

  record IngestReply(Outcome outcome, String message, long sequence, boolean duplicate)
      implements QuotaResponse, OutcomeReply {}

  record UsageBatch(List<UsageEvent> events, long cursor, long lastSequence)
      implements QuotaResponse {
    public UsageBatch {
      events = List.copyOf(events);
    }
  }

  record AckReply(Outcome outcome, String message, long cursor)
      implements QuotaResponse, OutcomeReply {}

  record AggregateReply(List<Aggregate> buckets, long total) implements QuotaResponse {
    public AggregateReply {
      buckets = List.copyOf(buckets);
    }
  }

  record ReconcileReply(Outcome outcome, String message, List<Drift> drifts)
      implements QuotaResponse, OutcomeReply {
    public ReconcileReply {
      drifts = List.copyOf(drifts);
    }
  }

  record AuditList(List<AuditRecord> records) implements QuotaResponse {
    public AuditList {
      records = List.copyOf(records);
    }
  }

  /**
   * BUDGET_GRANT. On SUCCESS the budget: {@code granted} (at most what was asked) until
   * {@code expiresAtMillis}, its earliest window's end, and {@code atMillis}, the ledger time of
   * the grant, and {@code overdraft}, how much more the holder may admit from it in all while it
   * cannot reach the cluster (soft quotas; 0 otherwise); otherwise the refusing level,
   * {@code retryAfterMillis} (its window's end).
   */
  record BudgetGrantReply(Outcome outcome, String message, String levelScope, String resource,
      long retryAfterMillis, long budgetId, long granted, long expiresAtMillis,
      long windowEndMillis, long configVersion, long atMillis, long overdraft)
      implements QuotaResponse, OutcomeReply {}

  /**
   * One report's answer: SUCCESS with the budget as it stands ({@code ended}: it admits nothing
   * more; {@code resent}: the report was counted before), or a refusal with zeros.
   */
  record BudgetReportInfo(Outcome outcome, String message, long budgetId, long granted,
      long spent, long expiresAtMillis, long windowEndMillis, boolean ended, boolean resent,
      long atMillis) {}

  /** BUDGET_REPORT: the frame's outcome, then one answer per report, in order. */
  record BudgetReportsReply(Outcome outcome, String message, List<BudgetReportInfo> reports)
      implements QuotaResponse, OutcomeReply {
    public BudgetReportsReply {
      reports = List.copyOf(reports);
    }
  }

  /** RESERVE_BATCH: the frame's outcome, then one RESERVE answer per reservation, in order. */
  record ReserveBatchReply(Outcome outcome, String message, List<ReserveReply> replies)
      implements QuotaResponse, OutcomeReply {
    public ReserveBatchReply {
      replies = List.copyOf(replies);
    }
  }

  /** BUDGET_RETURN: the final spend and the amount given back. */
  record BudgetReturnReply(Outcome outcome, String message, long budgetId, long spent,
      long released) implements QuotaResponse, OutcomeReply {}

  /** One budget as BUDGET_LIST shows it. */
  record BudgetInfo(long budgetId, String holder, String scope, String resource, long granted,
      long spent, long reportSequence, long grantedAtMillis, long expiresAtMillis,
      long windowEndMillis, long keepUntilMillis, boolean lapsed) {}

  record BudgetList(List<BudgetInfo> budgets) implements QuotaResponse {
    public BudgetList {
      budgets = List.copyOf(budgets);
    }
  }
}
