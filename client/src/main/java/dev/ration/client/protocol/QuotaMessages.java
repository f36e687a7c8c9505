package dev.ration.client.protocol;

import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;
import dev.ration.wire.EventType;
import dev.ration.wire.Outcome;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import dev.ration.wire.quota.QuotaSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Bodies of the quota kinds (0x40–0x5F); MessageCodec frames them (request: u32 timeoutMillis
 * first; response: u16 errorCode first) and delegates here. Big-endian; str = u16 length +
 * UTF-8; list = u32 count + items; optional = u8 present + struct. Field order is exactly the
 * record component order of {@link QuotaRequest} and {@link QuotaResponse}, listed in
 * docs/PROTOCOL.md; pinned by golden tests. Stateless.
 */
final class QuotaMessages {
  private QuotaMessages() {}

  static boolean isQuota(Kind kind) {
    return kind.code() >= 0x40 && kind.code() <= 0x5F;
  }

  // ---------------------------------------------------------------- requests

  static void encodeRequest(ByteWriter w, QuotaRequest request) {
    if (request instanceof QuotaRequest.SetQuota s) {
      w.str("scope", s.scope()).str("resource", s.resource()).u8("quotaKind", MessageCodec.required("quotaKind", s.quotaKind()).code())
          .u8("window", MessageCodec.required("window", s.window()).code()).i64(s.limit()).str("unit", s.unit())
          .i64(s.softLimit()).u8("overage", MessageCodec.required("overage", s.overage()).code()).i64(s.overageMax())
          .i64(s.periodStartMillis()).i64(s.expectedVersion()).str("actor", s.actor())
          .str("reason", s.reason());
    } else if (request instanceof QuotaRequest.GetQuota g) {
      w.str("scope", g.scope()).str("resource", g.resource()).bool(g.stale());
    } else if (request instanceof QuotaRequest.ListQuotas l) {
      w.str("scopePrefix", l.scopePrefix()).bool(l.stale());
    } else if (request instanceof QuotaRequest.QuotaHistory h) {
      w.str("scope", h.scope()).str("resource", h.resource());
    } else if (request instanceof QuotaRequest.Reserve r) {
      w.str("scope", r.scope()).u32("items.count", r.items().size());
      for (QuotaRequest.Item item : r.items()) {
        w.str("resource", item.resource()).i64(item.amount());
      }
      w.i64(r.configVersion()).i64(r.ttlMillis());
    } else if (request instanceof QuotaRequest.CompleteReservation c) {
      w.i64(c.reservationId());
      longs(w, "actuals", c.actuals());
    } else if (request instanceof QuotaRequest.CancelReservation c) {
      w.i64(c.reservationId());
    } else if (request instanceof QuotaRequest.ListReservations l) {
      w.str("scopePrefix", l.scopePrefix());
    } else if (request instanceof QuotaRequest.IngestUsage i) {
      w.str("eventId", i.eventId()).i64(i.eventTimeMillis()).str("scope", i.scope())
          .str("resource", i.resource()).i64(i.quantity()).str("unit", i.unit())
          .i64(i.reservationId());
    } else if (request instanceof QuotaRequest.ReadUsage r) {
      w.str("consumer", r.consumer()).i64(r.fromSequence()).i32(r.max());
    } else if (request instanceof QuotaRequest.AckUsage a) {
      w.str("consumer", a.consumer()).i64(a.sequence());
    } else if (request instanceof QuotaRequest.AggregateUsage a) {
      w.str("scope", a.scope()).str("resource", a.resource()).i64(a.fromMillis())
          .i64(a.toMillis());
    } else if (request instanceof QuotaRequest.Reconcile r) {
      w.str("scope", r.scope()).str("resource", r.resource()).i64(r.fromMillis())
          .i64(r.toMillis()).bool(r.repair()).str("actor", r.actor())
          .str("reason", r.reason());
    } else if (request instanceof QuotaRequest.ReadAudit a) {
      w.i64(a.fromSequence()).i32(a.max());
    } else {
      throw new IllegalArgumentException("unknown quota request " + request);
    }
  }

  static QuotaRequest decodeRequest(Kind kind, ByteReader r) throws MalformedMessageException {
    switch (kind) {
      case QUOTA_SET:
        return new QuotaRequest.SetQuota(r.str("scope"), r.str("resource"),
            code(r, "quotaKind", QuotaKind::fromCode), code(r, "window", Window::fromCode),
            r.i64("limit"), r.str("unit"), r.i64("softLimit"), code(r, "overage", Overage::fromCode), r.i64("overageMax"),
            r.i64("periodStartMillis"), r.i64("expectedVersion"), r.str("actor"),
            r.str("reason"));
      case QUOTA_GET:
        return new QuotaRequest.GetQuota(r.str("scope"), r.str("resource"), r.bool("stale"));
      case QUOTA_LIST:
        return new QuotaRequest.ListQuotas(r.str("scopePrefix"), r.bool("stale"));
      case QUOTA_HISTORY:
        return new QuotaRequest.QuotaHistory(r.str("scope"), r.str("resource"));
      case RESERVE: {
        String scope = r.str("scope");
        int n = r.count("items.count", 10);
        List<QuotaRequest.Item> items = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          items.add(new QuotaRequest.Item(r.str("items[" + i + "].resource"),
              r.i64("items[" + i + "].amount")));
        }
        return new QuotaRequest.Reserve(scope, items, r.i64("configVersion"), r.i64("ttlMillis"));
      }
      case RESERVATION_COMPLETE:
        return new QuotaRequest.CompleteReservation(r.i64("reservationId"), longs(r, "actuals"));
      case RESERVATION_CANCEL:
        return new QuotaRequest.CancelReservation(r.i64("reservationId"));
      case RESERVATION_LIST:
        return new QuotaRequest.ListReservations(r.str("scopePrefix"));
      case USAGE_INGEST:
        return new QuotaRequest.IngestUsage(r.str("eventId"), r.i64("eventTimeMillis"),
            r.str("scope"), r.str("resource"), r.i64("quantity"), r.str("unit"),
            r.i64("reservationId"));
      case USAGE_READ:
        return new QuotaRequest.ReadUsage(r.str("consumer"), r.i64("fromSequence"), r.i32("max"));
      case USAGE_ACK:
        return new QuotaRequest.AckUsage(r.str("consumer"), r.i64("sequence"));
      case USAGE_AGGREGATE:
        return new QuotaRequest.AggregateUsage(r.str("scope"), r.str("resource"),
            r.i64("fromMillis"), r.i64("toMillis"));
      case USAGE_RECONCILE:
        return new QuotaRequest.Reconcile(r.str("scope"), r.str("resource"),
            r.i64("fromMillis"), r.i64("toMillis"), r.bool("repair"), r.str("actor"),
            r.str("reason"));
      case AUDIT_READ:
        return new QuotaRequest.ReadAudit(r.i64("fromSequence"), r.i32("max"));
      default:
        throw new MalformedMessageException(kind.name(), "not a quota kind");
    }
  }

  // ---------------------------------------------------------------- responses

  static void encodeResponse(ByteWriter w, QuotaResponse response) {
    if (response instanceof QuotaResponse.QuotaSetReply s) {
      outcome(w, s.outcome()).str("message", s.message()).i64(s.currentVersion());
      optionalQuota(w, s.quota());
    } else if (response instanceof QuotaResponse.QuotaFound f) {
      optionalQuota(w, f.quota());
    } else if (response instanceof QuotaResponse.QuotaList l) {
      w.u32("quotas.count", l.quotas().size());
      l.quotas().forEach(q -> quota(w, q));
    } else if (response instanceof QuotaResponse.ReserveReply r) {
      outcome(w, r.outcome()).str("message", r.message()).str("levelScope", r.levelScope())
          .str("resource", r.resource()).i64(r.retryAfterMillis()).i64(r.currentVersion())
          .i64(r.reservationId()).i64(r.expiresAtMillis()).i64(r.configVersion());
      items(w, r.items());
    } else if (response instanceof QuotaResponse.SettleReply s) {
      outcome(w, s.outcome()).str("message", s.message()).i64(s.reservationId())
          .u8("how", s.how() == null ? 0 : s.how().code());
      longs(w, "quantities", s.quantities());
      longs(w, "eventSequences", s.eventSequences());
      w.bool(s.alreadySettled());
    } else if (response instanceof QuotaResponse.ReservationList l) {
      w.u32("reservations.count", l.reservations().size());
      for (QuotaResponse.ReservationInfo r : l.reservations()) {
        w.i64(r.reservationId()).str("scope", r.scope()).i64(r.configVersion())
            .i64(r.createdAtMillis()).i64(r.expiresAtMillis());
        items(w, r.items());
      }
    } else if (response instanceof QuotaResponse.IngestReply i) {
      outcome(w, i.outcome()).str("message", i.message()).i64(i.sequence()).bool(i.duplicate());
    } else if (response instanceof QuotaResponse.UsageBatch b) {
      w.u32("events.count", b.events().size());
      for (QuotaResponse.UsageEventInfo e : b.events()) {
        w.i64(e.sequence()).str("eventId", e.eventId()).u8("type", MessageCodec.required("type", e.type()).code())
            .i64(e.eventTimeMillis()).i64(e.recordedAtMillis()).str("scope", e.scope())
            .str("resource", e.resource()).i64(e.quantity()).str("unit", e.unit())
            .i64(e.reservationId()).i64(e.overage());
      }
      w.i64(b.cursor()).i64(b.lastSequence());
    } else if (response instanceof QuotaResponse.AckReply a) {
      outcome(w, a.outcome()).str("message", a.message()).i64(a.cursor());
    } else if (response instanceof QuotaResponse.AggregateReply a) {
      w.u32("buckets.count", a.buckets().size());
      for (QuotaResponse.AggregateInfo b : a.buckets()) {
        w.str("scope", b.scope()).str("resource", b.resource()).i64(b.bucketStartMillis())
            .i64(b.quantity()).i64(b.events());
      }
      w.i64(a.total());
    } else if (response instanceof QuotaResponse.ReconcileReply r) {
      outcome(w, r.outcome()).str("message", r.message()).u32("drifts.count", r.drifts().size());
      for (QuotaResponse.DriftInfo d : r.drifts()) {
        w.str("kind", d.kind()).str("scope", d.scope()).str("resource", d.resource())
            .i64(d.reservationId()).i64(d.bucketStartMillis()).i64(d.expected())
            .i64(d.recorded()).i64(d.compensationSequence());
      }
    } else if (response instanceof QuotaResponse.AuditList a) {
      w.u32("records.count", a.records().size());
      for (QuotaResponse.AuditInfo x : a.records()) {
        w.i64(x.sequence()).i64(x.atMillis()).str("actor", x.actor())
            .str("action", x.action()).str("scope", x.scope())
            .str("resource", x.resource()).i64(x.version()).str("reason", x.reason())
            .str("detail", x.detail());
      }
    } else {
      throw new IllegalArgumentException("unknown quota response " + response);
    }
  }

  static QuotaResponse decodeResponse(Kind kind, ByteReader r) throws MalformedMessageException {
    switch (kind) {
      case QUOTA_SET:
        return new QuotaResponse.QuotaSetReply(outcome(r), r.str("message"),
            r.i64("currentVersion"), optionalQuota(r));
      case QUOTA_GET:
        return new QuotaResponse.QuotaFound(optionalQuota(r));
      case QUOTA_LIST:
      case QUOTA_HISTORY: {
        int n = r.count("quotas.count", 40);
        List<QuotaResponse.QuotaInfo> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          list.add(quota(r));
        }
        return new QuotaResponse.QuotaList(list);
      }
      case RESERVE:
        return new QuotaResponse.ReserveReply(outcome(r), r.str("message"),
            r.str("levelScope"), r.str("resource"), r.i64("retryAfterMillis"),
            r.i64("currentVersion"), r.i64("reservationId"), r.i64("expiresAtMillis"),
            r.i64("configVersion"), items(r));
      case RESERVATION_COMPLETE:
      case RESERVATION_CANCEL:
        return new QuotaResponse.SettleReply(outcome(r), r.str("message"),
            r.i64("reservationId"), how(r), longs(r, "quantities"),
            longs(r, "eventSequences"), r.bool("alreadySettled"));
      case RESERVATION_LIST: {
        int n = r.count("reservations.count", 30);
        List<QuotaResponse.ReservationInfo> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          list.add(new QuotaResponse.ReservationInfo(r.i64("reservationId"), r.str("scope"),
              r.i64("configVersion"), r.i64("createdAtMillis"), r.i64("expiresAtMillis"), items(r)));
        }
        return new QuotaResponse.ReservationList(list);
      }
      case USAGE_INGEST:
        return new QuotaResponse.IngestReply(outcome(r), r.str("message"), r.i64("sequence"),
            r.bool("duplicate"));
      case USAGE_READ: {
        int n = r.count("events.count", 60);
        List<QuotaResponse.UsageEventInfo> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          list.add(new QuotaResponse.UsageEventInfo(r.i64("sequence"), r.str("eventId"),
              code(r, "type", EventType::fromCode), r.i64("eventTimeMillis"), r.i64("recordedAtMillis"),
              r.str("scope"), r.str("resource"), r.i64("quantity"), r.str("unit"),
              r.i64("reservationId"), r.i64("overage")));
        }
        return new QuotaResponse.UsageBatch(list, r.i64("cursor"), r.i64("lastSequence"));
      }
      case USAGE_ACK:
        return new QuotaResponse.AckReply(outcome(r), r.str("message"), r.i64("cursor"));
      case USAGE_AGGREGATE: {
        int n = r.count("buckets.count", 28);
        List<QuotaResponse.AggregateInfo> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          list.add(new QuotaResponse.AggregateInfo(r.str("scope"), r.str("resource"),
              r.i64("bucketStartMillis"), r.i64("quantity"), r.i64("events")));
        }
        return new QuotaResponse.AggregateReply(list, r.i64("total"));
      }
      case USAGE_RECONCILE: {
        Outcome outcome = outcome(r);
        String message = r.str("message");
        int n = r.count("drifts.count", 46);
        List<QuotaResponse.DriftInfo> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          list.add(new QuotaResponse.DriftInfo(r.str("kind"), r.str("scope"),
              r.str("resource"), r.i64("reservationId"), r.i64("bucketStartMillis"),
              r.i64("expected"), r.i64("recorded"), r.i64("compensationSequence")));
        }
        return new QuotaResponse.ReconcileReply(outcome, message, list);
      }
      case AUDIT_READ: {
        int n = r.count("records.count", 38);
        List<QuotaResponse.AuditInfo> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          list.add(new QuotaResponse.AuditInfo(r.i64("sequence"), r.i64("atMillis"),
              r.str("actor"), r.str("action"), r.str("scope"), r.str("resource"),
              r.i64("version"), r.str("reason"), r.str("detail")));
        }
        return new QuotaResponse.AuditList(list);
      }
      default:
        throw new MalformedMessageException(kind.name(), "not a quota kind");
    }
  }

  // ---------------------------------------------------------------- structs

  private static ByteWriter outcome(ByteWriter w, Outcome o) {
    return w.u8("outcome", o.code());
  }

  private static Outcome outcome(ByteReader r) throws MalformedMessageException {
    int code = r.u8("outcome");
    for (Outcome o : Outcome.values()) {
      if (o.code() == code) {
        return o;
      }
    }
    throw new MalformedMessageException(r.what() + ".outcome", "unknown outcome code " + code);
  }

  private static void longs(ByteWriter w, String field, List<Long> values) {
    w.u32(field + ".count", values.size());
    values.forEach(w::i64);
  }

  private static List<Long> longs(ByteReader r, String field) throws MalformedMessageException {
    int n = r.count(field + ".count", 8);
    List<Long> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(r.i64(field + "[" + i + "]"));
    }
    return out;
  }

  private static void items(ByteWriter w, List<QuotaResponse.ReservedItem> items) {
    w.u32("items.count", items.size());
    for (QuotaResponse.ReservedItem i : items) {
      w.str("resource", i.resource()).i64(i.amount()).i64(i.overage()).str("unit", i.unit());
    }
  }

  private static List<QuotaResponse.ReservedItem> items(ByteReader r)
      throws MalformedMessageException {
    int n = r.count("items.count", 20);
    List<QuotaResponse.ReservedItem> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(new QuotaResponse.ReservedItem(r.str("resource"), r.i64("amount"),
          r.i64("overage"), r.str("unit")));
    }
    return out;
  }

  private static void optionalQuota(ByteWriter w, Optional<QuotaResponse.QuotaInfo> q) {
    w.bool(q.isPresent());
    q.ifPresent(info -> quota(w, info));
  }

  private static Optional<QuotaResponse.QuotaInfo> optionalQuota(ByteReader r)
      throws MalformedMessageException {
    return r.present("quota") ? Optional.of(quota(r)) : Optional.empty();
  }

  private static void quota(ByteWriter w, QuotaResponse.QuotaInfo q) {
    QuotaSpec s = q.spec();
    w.str("scope", s.scope()).str("resource", s.resource()).u8("quotaKind", MessageCodec.required("quotaKind", s.kind()).code())
        .u8("window", MessageCodec.required("window", s.window()).code()).i64(s.limit()).str("unit", s.unit())
        .i64(s.softLimit()).u8("overage", MessageCodec.required("overage", s.overage()).code()).i64(s.overageMax())
        .i64(s.periodStartMillis()).i64(s.version()).str("actor", s.actor())
        .i64(s.changedAtMillis()).str("reason", s.reason()).i64(q.windowStartMillis())
        .i64(q.windowUsed()).i64(q.held()).i64(q.allocated()).bool(q.alerted());
  }

  private static QuotaResponse.QuotaInfo quota(ByteReader r) throws MalformedMessageException {
    QuotaSpec spec = new QuotaSpec(r.str("scope"), r.str("resource"),
        code(r, "quotaKind", QuotaKind::fromCode), code(r, "window", Window::fromCode),
        r.i64("limit"), r.str("unit"), r.i64("softLimit"), code(r, "overage", Overage::fromCode),
        r.i64("overageMax"), r.i64("periodStartMillis"), r.i64("version"), r.str("actor"),
        r.i64("changedAtMillis"), r.str("reason"));
    return new QuotaResponse.QuotaInfo(spec, r.i64("windowStartMillis"), r.i64("windowUsed"),
        r.i64("held"), r.i64("allocated"), r.bool("alerted"));
  }

  /** A refused settlement names no event type and sends 0 in its place. */
  private static EventType how(ByteReader r) {
    int code = r.u8("how");
    try {
      return code == 0 ? null : EventType.fromCode(code);
    } catch (IllegalArgumentException e) {
      throw new MalformedMessageException(r.what() + ".how", e.getMessage());
    }
  }

  private static <E> E code(ByteReader r, String field, java.util.function.IntFunction<E> fromCode) {
    return MessageCodec.code(r, field, fromCode);
  }
}
