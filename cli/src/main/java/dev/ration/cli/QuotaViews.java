package dev.ration.cli;

import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.quota.AuditRecord;
import dev.ration.wire.quota.Drift;
import dev.ration.wire.quota.Aggregate;
import dev.ration.wire.quota.UsageEvent;

import dev.ration.protocol.QuotaResponse;
import java.util.List;

/** Printable views of quota, reservation and usage replies (tables and JSON). */
final class QuotaViews {
  private QuotaViews() {}

  static final String[] KINDS = {"", "rate", "concurrent", "allocation", "cumulative"};
  static final String[] WINDOWS = {"none", "second", "minute", "hour", "day", "week", "month"};
  static final String[] OVERAGES = {"", "reject", "allow", "overdraft"};
  static final String[] EVENTS = {"", "completed", "cancelled", "expired", "ingested",
      "compensation", "alert", "budget-spent"};

  static String name(String[] names, int code) {
    return code >= 0 && code < names.length && !names[code].isEmpty() ? names[code] : "code-" + code;
  }

  /** The code of {@code value} in {@code names}, or -1. */
  static int code(String[] names, String value) {
    for (int i = 0; i < names.length; i++) {
      if (!names[i].isEmpty() && names[i].equalsIgnoreCase(value)) {
        return i;
      }
    }
    return -1;
  }

  static Fields quota(QuotaResponse.QuotaInfo q) {
    QuotaSpec s = q.spec();
    return new Fields()
        .put("scope", s.scope())
        .put("resource", s.resource())
        .put("kind", name(KINDS, s.kind().code()))
        .put("window", name(WINDOWS, s.window().code()))
        .put("limit", s.limit())
        .put("unit", s.unit())
        .put("softLimit", s.softLimit())
        .put("overage", name(OVERAGES, s.overage().code()))
        .put("overageMax", s.overageMax())
        .put("periodStartMillis", s.periodStartMillis())
        .put("version", s.version())
        .put("actor", s.actor())
        .put("changedAtMillis", s.changedAtMillis())
        .put("reason", s.reason())
        .put("windowStartMillis", q.windowStartMillis())
        .put("windowUsed", q.windowUsed())
        .put("held", q.held())
        .put("allocated", q.allocated())
        .put("alerted", q.alerted());
  }

  static final List<String> QUOTA_COLUMNS = List.of("scope", "resource", "kind", "window", "limit",
      "unit", "softLimit", "overage", "version", "windowUsed", "held", "allocated");

  static final List<String> HISTORY_COLUMNS = List.of("version", "changedAt", "actor",
      "limit", "softLimit", "overage", "overageMax", "reason");

  static Fields reserveReply(QuotaResponse.ReserveReply r) {
    return new Fields()
        .put("outcome", r.outcome().name())
        .put("message", r.message())
        .put("reservationId", r.reservationId())
        .put("expiresAtMillis", r.expiresAtMillis())
        .put("configVersion", r.configVersion())
        .put("levelScope", r.levelScope())
        .put("resource", r.resource())
        .put("retryAfterMillis", r.retryAfterMillis())
        .put("currentVersion", r.currentVersion())
        .put("items", r.items().stream().map(QuotaViews::item).toList());
  }

  static Fields item(QuotaResponse.ReservedItem i) {
    return new Fields().put("resource", i.resource()).put("amount", i.amount())
        .put("overage", i.overage()).put("unit", i.unit());
  }

  static Fields reservation(QuotaResponse.ReservationInfo r) {
    return new Fields()
        .put("reservationId", r.reservationId())
        .put("scope", r.scope())
        .put("items", r.items().stream()
            .map(i -> i.resource() + "=" + i.amount() + (i.overage() > 0 ? "(+" + i.overage() + " billable)" : ""))
            .reduce((a, b) -> a + "," + b).orElse(""))
        .put("configVersion", r.configVersion())
        .put("createdAtMillis", r.createdAtMillis())
        .put("expiresAtMillis", r.expiresAtMillis());
  }

  static Fields budget(QuotaResponse.BudgetInfo b) {
    return new Fields()
        .put("budgetId", b.budgetId())
        .put("holder", b.holder())
        .put("scope", b.scope())
        .put("resource", b.resource())
        .put("granted", b.granted())
        .put("spent", b.spent())
        .put("reportSequence", b.reportSequence())
        .put("grantedAtMillis", b.grantedAtMillis())
        .put("expiresAtMillis", b.expiresAtMillis())
        .put("windowEndsAtMillis", b.windowEndMillis())
        .put("keepUntilMillis", b.keepUntilMillis())
        .put("lapsed", b.lapsed());
  }

  static final List<String> BUDGET_COLUMNS = List.of("budgetId", "holder", "scope", "resource",
      "granted", "spent", "expiresAt", "windowEndsAt", "lapsed");

  static final List<String> RESERVATION_COLUMNS = List.of("reservationId", "scope", "items",
      "configVersion", "createdAt", "expiresAt");

  static Fields settleReply(QuotaResponse.SettleReply r) {
    return new Fields()
        .put("outcome", r.outcome().name())
        .put("message", r.message())
        .put("reservationId", r.reservationId())
        .put("how", r.how() == null ? Fields.NONE : name(EVENTS, r.how().code()))
        .put("quantities", r.quantities())
        .put("eventSequences", r.eventSequences())
        .put("alreadySettled", r.alreadySettled());
  }

  static Fields event(UsageEvent e) {
    return new Fields()
        .put("sequence", e.sequence())
        .put("eventId", e.eventId())
        .put("type", name(EVENTS, e.type().code()))
        .put("eventTimeMillis", e.eventTimeMillis())
        .put("recordedAtMillis", e.recordedAtMillis())
        .put("scope", e.scope())
        .put("resource", e.resource())
        .put("quantity", e.quantity())
        .put("unit", e.unit())
        .put("reservationId", e.reservationId())
        .put("overage", e.overage());
  }

  static final List<String> EVENT_COLUMNS = List.of("sequence", "eventId", "type",
      "eventTime", "scope", "resource", "quantity", "unit", "reservationId", "overage");

  static Fields aggregate(Aggregate a) {
    return new Fields().put("scope", a.scope()).put("resource", a.resource())
        .put("bucketStartMillis", a.bucketStartMillis()).put("quantity", a.quantity())
        .put("events", a.events());
  }

  static final List<String> AGGREGATE_COLUMNS = List.of("scope", "resource", "bucketStart",
      "quantity", "events");

  static Fields drift(Drift d) {
    return new Fields().put("kind", d.kind()).put("scope", d.scope()).put("resource", d.resource())
        .put("reservationId", d.reservationId()).put("bucketStartMillis", d.bucketStartMillis())
        .put("expected", d.expected()).put("recorded", d.recorded())
        .put("compensationSequence", d.compensationSequence());
  }

  static final List<String> DRIFT_COLUMNS = List.of("kind", "scope", "resource", "reservationId",
      "bucketStart", "expected", "recorded", "compensationSequence");

  static Fields audit(AuditRecord a) {
    return new Fields().put("sequence", a.sequence()).put("atMillis", a.atMillis())
        .put("actor", a.actor()).put("action", a.action()).put("scope", a.scope())
        .put("resource", a.resource()).put("version", a.version()).put("reason", a.reason())
        .put("detail", a.detail());
  }

  static final List<String> AUDIT_COLUMNS = List.of("sequence", "at", "actor", "action",
      "scope", "resource", "version", "reason", "detail");
}
