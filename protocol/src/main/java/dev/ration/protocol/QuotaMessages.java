package dev.ration.protocol;

import static dev.ration.wire.shape.Fields.bool;
import static dev.ration.wire.shape.Fields.code;
import static dev.ration.wire.shape.Fields.i32;
import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.list;
import static dev.ration.wire.shape.Fields.longs;
import static dev.ration.wire.shape.Fields.optionalCode;
import static dev.ration.wire.shape.Fields.optionalOf;
import static dev.ration.wire.shape.Fields.str;
import static dev.ration.wire.shape.Fields.struct;

import dev.ration.wire.EventType;
import dev.ration.wire.quota.UsageEvent;
import dev.ration.wire.quota.Drift;
import dev.ration.wire.quota.AuditRecord;
import dev.ration.wire.quota.Aggregate;
import dev.ration.wire.Outcome;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.shape.Shape;

/**
 * The shapes of the quota, reservation and usage kinds (0x40–0x5F): each field list is written
 * once here and serves both directions. The order is the wire order, pinned by the golden tests
 * and listed in docs/PROTOCOL.md.
 */
final class QuotaMessages {
  // Smallest encoding of one list item (every string empty, every nested list empty), used to
  // bound a declared count before allocating. A bound above the true minimum refuses valid
  // messages, so each is the sum of its fields in order.
  /** RESERVE request item: resource, amount. */
  static final int ITEM_BYTES_MIN = 2 + 8;
  /** scope, resource, 3 codes, unit, actor, reason, 10 longs, alerted. */
  static final int QUOTA_INFO_BYTES_MIN = 2 + 2 + 1 + 1 + 8 + 2 + 8 + 1 + 8 + 8 + 8 + 2 + 8 + 2
      + 8 + 8 + 8 + 8 + 1;
  /** id, scope, configVersion, createdAt, expiresAt, items count. */
  static final int RESERVATION_INFO_BYTES_MIN = 8 + 2 + 8 + 8 + 8 + 4;
  /** sequence, eventId, type, eventTime, recordedAt, scope, resource, quantity, unit, reservationId, overage. */
  static final int USAGE_EVENT_BYTES_MIN = 8 + 2 + 1 + 8 + 8 + 2 + 2 + 8 + 2 + 8 + 8;
  /** scope, resource, bucketStart, quantity, events. */
  static final int AGGREGATE_INFO_BYTES_MIN = 2 + 2 + 8 + 8 + 8;
  /** kind, scope, resource, reservationId, bucketStart, expected, recorded, compensationSequence. */
  static final int DRIFT_INFO_BYTES_MIN = 2 + 2 + 2 + 8 + 8 + 8 + 8 + 8;
  /** sequence, at, actor, action, scope, resource, version, reason, detail. */
  static final int AUDIT_INFO_BYTES_MIN = 8 + 8 + 2 + 2 + 2 + 2 + 8 + 2 + 2;
  /** Reply item: resource, amount, overage, unit. */
  static final int RESERVED_ITEM_BYTES_MIN = 2 + 8 + 8 + 2;

  private QuotaMessages() {}

  static final Shape<QuotaRequest.SetQuota> SET_QUOTA =
      Shape.of(QuotaRequest.SetQuota.class,
          struct("spec", QuotaRequest.SetQuota::spec, QuotaSpec.PROPOSAL));

  static final Shape<QuotaRequest.GetQuota> GET_QUOTA =
      Shape.of(
          QuotaRequest.GetQuota.class,
          str("scope", QuotaRequest.GetQuota::scope),
          str("resource", QuotaRequest.GetQuota::resource),
          bool("stale", QuotaRequest.GetQuota::stale));

  static final Shape<QuotaRequest.ListQuotas> LIST_QUOTAS =
      Shape.of(
          QuotaRequest.ListQuotas.class,
          str("scopePrefix", QuotaRequest.ListQuotas::scopePrefix),
          bool("stale", QuotaRequest.ListQuotas::stale));

  static final Shape<QuotaRequest.QuotaHistory> QUOTA_HISTORY =
      Shape.of(
          QuotaRequest.QuotaHistory.class,
          str("scope", QuotaRequest.QuotaHistory::scope),
          str("resource", QuotaRequest.QuotaHistory::resource));

  static final Shape<QuotaRequest.Item> ITEM =
      Shape.of(
          QuotaRequest.Item.class,
          str("resource", QuotaRequest.Item::resource),
          i64("amount", QuotaRequest.Item::amount));

  static final Shape<QuotaRequest.Reserve> RESERVE =
      Shape.of(
          QuotaRequest.Reserve.class,
          str("scope", QuotaRequest.Reserve::scope),
          list("items", QuotaRequest.Reserve::items, ITEM),
          i64("configVersion", QuotaRequest.Reserve::configVersion),
          i64("ttlMillis", QuotaRequest.Reserve::ttlMillis));

  static final Shape<QuotaRequest.ReserveKeyed> RESERVE_KEYED =
      Shape.of(
          QuotaRequest.ReserveKeyed.class,
          str("idempotencyKey", QuotaRequest.ReserveKeyed::idempotencyKey),
          str("scope", QuotaRequest.ReserveKeyed::scope),
          list("items", QuotaRequest.ReserveKeyed::items, ITEM),
          i64("configVersion", QuotaRequest.ReserveKeyed::configVersion),
          i64("ttlMillis", QuotaRequest.ReserveKeyed::ttlMillis));

  static final Shape<QuotaRequest.CompleteReservation> COMPLETE =
      Shape.of(
          QuotaRequest.CompleteReservation.class,
          i64("reservationId", QuotaRequest.CompleteReservation::reservationId),
          longs("actuals", QuotaRequest.CompleteReservation::actuals));

  static final Shape<QuotaRequest.CancelReservation> CANCEL =
      Shape.of(
          QuotaRequest.CancelReservation.class,
          i64("reservationId", QuotaRequest.CancelReservation::reservationId));

  static final Shape<QuotaRequest.ListReservations> LIST_RESERVATIONS =
      Shape.of(
          QuotaRequest.ListReservations.class,
          str("scopePrefix", QuotaRequest.ListReservations::scopePrefix));

  static final Shape<QuotaRequest.IngestUsage> INGEST =
      Shape.of(
          QuotaRequest.IngestUsage.class,
          str("eventId", QuotaRequest.IngestUsage::eventId),
          i64("eventTimeMillis", QuotaRequest.IngestUsage::eventTimeMillis),
          str("scope", QuotaRequest.IngestUsage::scope),
          str("resource", QuotaRequest.IngestUsage::resource),
          i64("quantity", QuotaRequest.IngestUsage::quantity),
          str("unit", QuotaRequest.IngestUsage::unit),
          i64("reservationId", QuotaRequest.IngestUsage::reservationId));

  static final Shape<QuotaRequest.ReadUsage> READ_USAGE =
      Shape.of(
          QuotaRequest.ReadUsage.class,
          str("consumer", QuotaRequest.ReadUsage::consumer),
          i64("fromSequence", QuotaRequest.ReadUsage::fromSequence),
          i32("max", QuotaRequest.ReadUsage::max));

  static final Shape<QuotaRequest.AckUsage> ACK_USAGE =
      Shape.of(
          QuotaRequest.AckUsage.class,
          str("consumer", QuotaRequest.AckUsage::consumer),
          i64("sequence", QuotaRequest.AckUsage::sequence));

  static final Shape<QuotaRequest.AggregateUsage> AGGREGATE_USAGE =
      Shape.of(
          QuotaRequest.AggregateUsage.class,
          str("scope", QuotaRequest.AggregateUsage::scope),
          str("resource", QuotaRequest.AggregateUsage::resource),
          i64("fromMillis", QuotaRequest.AggregateUsage::fromMillis),
          i64("toMillis", QuotaRequest.AggregateUsage::toMillis));

  static final Shape<QuotaRequest.Reconcile> RECONCILE =
      Shape.of(
          QuotaRequest.Reconcile.class,
          str("scope", QuotaRequest.Reconcile::scope),
          str("resource", QuotaRequest.Reconcile::resource),
          i64("fromMillis", QuotaRequest.Reconcile::fromMillis),
          i64("toMillis", QuotaRequest.Reconcile::toMillis),
          bool("repair", QuotaRequest.Reconcile::repair),
          str("actor", QuotaRequest.Reconcile::actor),
          str("reason", QuotaRequest.Reconcile::reason));

  static final Shape<QuotaRequest.ReadAudit> READ_AUDIT =
      Shape.of(
          QuotaRequest.ReadAudit.class,
          i64("fromSequence", QuotaRequest.ReadAudit::fromSequence),
          i32("max", QuotaRequest.ReadAudit::max));

  // Replies.

  static final Shape<QuotaSpec> SPEC = QuotaSpec.SHAPE;

  /** The spec's fields flat, then the usage figures. */
  static final Shape<QuotaResponse.QuotaInfo> QUOTA_INFO =
      Shape.of(
          QuotaResponse.QuotaInfo.class,
          struct("spec", QuotaResponse.QuotaInfo::spec, SPEC),
          i64("windowStartMillis", QuotaResponse.QuotaInfo::windowStartMillis),
          i64("windowUsed", QuotaResponse.QuotaInfo::windowUsed),
          i64("held", QuotaResponse.QuotaInfo::held),
          i64("allocated", QuotaResponse.QuotaInfo::allocated),
          bool("alerted", QuotaResponse.QuotaInfo::alerted));

  static final Shape<QuotaResponse.ReservedItem> RESERVED_ITEM =
      Shape.of(
          QuotaResponse.ReservedItem.class,
          str("resource", QuotaResponse.ReservedItem::resource),
          i64("amount", QuotaResponse.ReservedItem::amount),
          i64("overage", QuotaResponse.ReservedItem::overage),
          str("unit", QuotaResponse.ReservedItem::unit));

  static final Shape<QuotaResponse.ReservationInfo> RESERVATION_INFO =
      Shape.of(
          QuotaResponse.ReservationInfo.class,
          i64("reservationId", QuotaResponse.ReservationInfo::reservationId),
          str("scope", QuotaResponse.ReservationInfo::scope),
          i64("configVersion", QuotaResponse.ReservationInfo::configVersion),
          i64("createdAtMillis", QuotaResponse.ReservationInfo::createdAtMillis),
          i64("expiresAtMillis", QuotaResponse.ReservationInfo::expiresAtMillis),
          list("items", QuotaResponse.ReservationInfo::items, RESERVED_ITEM));

  static final Shape<UsageEvent> USAGE_EVENT = UsageEvent.SHAPE;

  static final Shape<Aggregate> AGGREGATE = Aggregate.SHAPE;

  static final Shape<Drift> DRIFT = Drift.SHAPE;

  static final Shape<AuditRecord> AUDIT = AuditRecord.SHAPE;

  static final Shape<QuotaResponse.QuotaSetReply> QUOTA_SET_REPLY =
      Shape.of(
          QuotaResponse.QuotaSetReply.class,
          code("outcome", QuotaResponse.QuotaSetReply::outcome, Outcome::fromCode, Outcome::code),
          str("message", QuotaResponse.QuotaSetReply::message),
          i64("currentVersion", QuotaResponse.QuotaSetReply::currentVersion),
          optionalOf("quota", QuotaResponse.QuotaSetReply::quota, QUOTA_INFO));

  static final Shape<QuotaResponse.QuotaFound> QUOTA_FOUND =
      Shape.of(
          QuotaResponse.QuotaFound.class,
          optionalOf("quota", QuotaResponse.QuotaFound::quota, QUOTA_INFO));

  static final Shape<QuotaResponse.QuotaList> QUOTA_LIST =
      Shape.of(
          QuotaResponse.QuotaList.class,
          list("quotas", QuotaResponse.QuotaList::quotas, QUOTA_INFO));

  static final Shape<QuotaResponse.ReserveReply> RESERVE_REPLY =
      Shape.of(
          QuotaResponse.ReserveReply.class,
          code("outcome", QuotaResponse.ReserveReply::outcome, Outcome::fromCode, Outcome::code),
          str("message", QuotaResponse.ReserveReply::message),
          str("levelScope", QuotaResponse.ReserveReply::levelScope),
          str("resource", QuotaResponse.ReserveReply::resource),
          i64("retryAfterMillis", QuotaResponse.ReserveReply::retryAfterMillis),
          i64("currentVersion", QuotaResponse.ReserveReply::currentVersion),
          i64("reservationId", QuotaResponse.ReserveReply::reservationId),
          i64("expiresAtMillis", QuotaResponse.ReserveReply::expiresAtMillis),
          i64("configVersion", QuotaResponse.ReserveReply::configVersion),
          list("items", QuotaResponse.ReserveReply::items, RESERVED_ITEM));

  /** A refused settlement names no event type: {@code how} is sent as 0. */
  static final Shape<QuotaResponse.SettleReply> SETTLE_REPLY =
      Shape.of(
          QuotaResponse.SettleReply.class,
          code("outcome", QuotaResponse.SettleReply::outcome, Outcome::fromCode, Outcome::code),
          str("message", QuotaResponse.SettleReply::message),
          i64("reservationId", QuotaResponse.SettleReply::reservationId),
          optionalCode("how", QuotaResponse.SettleReply::how, EventType::fromCode, EventType::code),
          longs("quantities", QuotaResponse.SettleReply::quantities),
          longs("eventSequences", QuotaResponse.SettleReply::eventSequences),
          bool("alreadySettled", QuotaResponse.SettleReply::alreadySettled));

  static final Shape<QuotaResponse.ReservationList> RESERVATION_LIST =
      Shape.of(
          QuotaResponse.ReservationList.class,
          list("reservations", QuotaResponse.ReservationList::reservations, RESERVATION_INFO));

  static final Shape<QuotaResponse.IngestReply> INGEST_REPLY =
      Shape.of(
          QuotaResponse.IngestReply.class,
          code("outcome", QuotaResponse.IngestReply::outcome, Outcome::fromCode, Outcome::code),
          str("message", QuotaResponse.IngestReply::message),
          i64("sequence", QuotaResponse.IngestReply::sequence),
          bool("duplicate", QuotaResponse.IngestReply::duplicate));

  static final Shape<QuotaResponse.UsageBatch> USAGE_BATCH =
      Shape.of(
          QuotaResponse.UsageBatch.class,
          list("events", QuotaResponse.UsageBatch::events, USAGE_EVENT),
          i64("cursor", QuotaResponse.UsageBatch::cursor),
          i64("lastSequence", QuotaResponse.UsageBatch::lastSequence));

  static final Shape<QuotaResponse.AckReply> ACK_REPLY =
      Shape.of(
          QuotaResponse.AckReply.class,
          code("outcome", QuotaResponse.AckReply::outcome, Outcome::fromCode, Outcome::code),
          str("message", QuotaResponse.AckReply::message),
          i64("cursor", QuotaResponse.AckReply::cursor));

  static final Shape<QuotaResponse.AggregateReply> AGGREGATE_REPLY =
      Shape.of(
          QuotaResponse.AggregateReply.class,
          list("buckets", QuotaResponse.AggregateReply::buckets, AGGREGATE),
          i64("total", QuotaResponse.AggregateReply::total));

  static final Shape<QuotaResponse.ReconcileReply> RECONCILE_REPLY =
      Shape.of(
          QuotaResponse.ReconcileReply.class,
          code("outcome", QuotaResponse.ReconcileReply::outcome, Outcome::fromCode, Outcome::code),
          str("message", QuotaResponse.ReconcileReply::message),
          list("drifts", QuotaResponse.ReconcileReply::drifts, DRIFT));

  static final Shape<QuotaResponse.AuditList> AUDIT_LIST =
      Shape.of(
          QuotaResponse.AuditList.class,
          list("records", QuotaResponse.AuditList::records, AUDIT));

  static final Shape<QuotaRequest.GrantBudget> GRANT_BUDGET =
      Shape.of(
          QuotaRequest.GrantBudget.class,
          str("holder", QuotaRequest.GrantBudget::holder),
          str("scope", QuotaRequest.GrantBudget::scope),
          str("resource", QuotaRequest.GrantBudget::resource),
          i64("amount", QuotaRequest.GrantBudget::amount),
          i64("leaseMillis", QuotaRequest.GrantBudget::leaseMillis));

  static final Shape<QuotaRequest.BudgetReport> BUDGET_REPORT =
      Shape.of(
          QuotaRequest.BudgetReport.class,
          i64("budgetId", QuotaRequest.BudgetReport::budgetId),
          i64("spent", QuotaRequest.BudgetReport::spent),
          i64("sequence", QuotaRequest.BudgetReport::sequence),
          i64("wantAmount", QuotaRequest.BudgetReport::wantAmount),
          i64("leaseMillis", QuotaRequest.BudgetReport::leaseMillis));

  static final Shape<QuotaRequest.ReportBudgets> REPORT_BUDGETS =
      Shape.of(
          QuotaRequest.ReportBudgets.class,
          list("reports", QuotaRequest.ReportBudgets::reports, BUDGET_REPORT));

  static final Shape<QuotaRequest.ReturnBudget> RETURN_BUDGET =
      Shape.of(
          QuotaRequest.ReturnBudget.class,
          i64("budgetId", QuotaRequest.ReturnBudget::budgetId),
          i64("spent", QuotaRequest.ReturnBudget::spent),
          i64("sequence", QuotaRequest.ReturnBudget::sequence));

  static final Shape<QuotaRequest.ListBudgets> LIST_BUDGETS =
      Shape.of(
          QuotaRequest.ListBudgets.class,
          str("scopePrefix", QuotaRequest.ListBudgets::scopePrefix));

  static final Shape<QuotaResponse.BudgetGrantReply> BUDGET_GRANT_REPLY =
      Shape.of(
          QuotaResponse.BudgetGrantReply.class,
          code("outcome", QuotaResponse.BudgetGrantReply::outcome, Outcome::fromCode, Outcome::code),
          str("message", QuotaResponse.BudgetGrantReply::message),
          str("levelScope", QuotaResponse.BudgetGrantReply::levelScope),
          str("resource", QuotaResponse.BudgetGrantReply::resource),
          i64("retryAfterMillis", QuotaResponse.BudgetGrantReply::retryAfterMillis),
          i64("budgetId", QuotaResponse.BudgetGrantReply::budgetId),
          i64("granted", QuotaResponse.BudgetGrantReply::granted),
          i64("expiresAtMillis", QuotaResponse.BudgetGrantReply::expiresAtMillis),
          i64("windowEndMillis", QuotaResponse.BudgetGrantReply::windowEndMillis),
          i64("configVersion", QuotaResponse.BudgetGrantReply::configVersion),
          i64("atMillis", QuotaResponse.BudgetGrantReply::atMillis),
          i64("overdraft", QuotaResponse.BudgetGrantReply::overdraft));

  static final Shape<QuotaResponse.BudgetReportInfo> BUDGET_REPORT_INFO =
      Shape.of(
          QuotaResponse.BudgetReportInfo.class,
          code("outcome", QuotaResponse.BudgetReportInfo::outcome, Outcome::fromCode, Outcome::code),
          str("message", QuotaResponse.BudgetReportInfo::message),
          i64("budgetId", QuotaResponse.BudgetReportInfo::budgetId),
          i64("granted", QuotaResponse.BudgetReportInfo::granted),
          i64("spent", QuotaResponse.BudgetReportInfo::spent),
          i64("expiresAtMillis", QuotaResponse.BudgetReportInfo::expiresAtMillis),
          i64("windowEndMillis", QuotaResponse.BudgetReportInfo::windowEndMillis),
          bool("ended", QuotaResponse.BudgetReportInfo::ended),
          bool("resent", QuotaResponse.BudgetReportInfo::resent),
          i64("atMillis", QuotaResponse.BudgetReportInfo::atMillis));

  static final Shape<QuotaRequest.ReserveBatch> RESERVE_BATCH =
      Shape.of(
          QuotaRequest.ReserveBatch.class,
          list("reserves", QuotaRequest.ReserveBatch::reserves, RESERVE_KEYED));

  static final Shape<QuotaResponse.ReserveBatchReply> RESERVE_BATCH_REPLY =
      Shape.of(
          QuotaResponse.ReserveBatchReply.class,
          code("outcome", QuotaResponse.ReserveBatchReply::outcome, Outcome::fromCode, Outcome::code),
          str("message", QuotaResponse.ReserveBatchReply::message),
          list("replies", QuotaResponse.ReserveBatchReply::replies, RESERVE_REPLY));

  static final Shape<QuotaResponse.BudgetReportsReply> BUDGET_REPORTS_REPLY =
      Shape.of(
          QuotaResponse.BudgetReportsReply.class,
          code("outcome", QuotaResponse.BudgetReportsReply::outcome, Outcome::fromCode, Outcome::code),
          str("message", QuotaResponse.BudgetReportsReply::message),
          list("reports", QuotaResponse.BudgetReportsReply::reports, BUDGET_REPORT_INFO));

  static final Shape<QuotaResponse.BudgetReturnReply> BUDGET_RETURN_REPLY =
      Shape.of(
          QuotaResponse.BudgetReturnReply.class,
          code("outcome", QuotaResponse.BudgetReturnReply::outcome, Outcome::fromCode, Outcome::code),
          str("message", QuotaResponse.BudgetReturnReply::message),
          i64("budgetId", QuotaResponse.BudgetReturnReply::budgetId),
          i64("spent", QuotaResponse.BudgetReturnReply::spent),
          i64("released", QuotaResponse.BudgetReturnReply::released));

  static final Shape<QuotaResponse.BudgetInfo> BUDGET_INFO =
      Shape.of(
          QuotaResponse.BudgetInfo.class,
          i64("budgetId", QuotaResponse.BudgetInfo::budgetId),
          str("holder", QuotaResponse.BudgetInfo::holder),
          str("scope", QuotaResponse.BudgetInfo::scope),
          str("resource", QuotaResponse.BudgetInfo::resource),
          i64("granted", QuotaResponse.BudgetInfo::granted),
          i64("spent", QuotaResponse.BudgetInfo::spent),
          i64("reportSequence", QuotaResponse.BudgetInfo::reportSequence),
          i64("grantedAtMillis", QuotaResponse.BudgetInfo::grantedAtMillis),
          i64("expiresAtMillis", QuotaResponse.BudgetInfo::expiresAtMillis),
          i64("windowEndMillis", QuotaResponse.BudgetInfo::windowEndMillis),
          i64("keepUntilMillis", QuotaResponse.BudgetInfo::keepUntilMillis),
          bool("lapsed", QuotaResponse.BudgetInfo::lapsed));

  static final Shape<QuotaResponse.BudgetList> BUDGET_LIST =
      Shape.of(
          QuotaResponse.BudgetList.class,
          list("budgets", QuotaResponse.BudgetList::budgets, BUDGET_INFO));
}
