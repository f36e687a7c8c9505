package dev.ration.client.protocol;

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

  static boolean isQuota(Kind kind) {
    return kind.code() >= 0x40 && kind.code() <= 0x5F;
  }

  // ---------------------------------------------------------------- requests

  static void encodeRequest(WireWriter w, QuotaRequest request) {
    if (request instanceof QuotaRequest.SetQuota s) {
      w.string("scope", s.scope()).string("resource", s.resource()).u8("kindCode", s.kindCode())
          .u8("windowCode", s.windowCode()).i64(s.limit()).string("unit", s.unit())
          .i64(s.softLimit()).u8("overageCode", s.overageCode()).i64(s.overageMax())
          .i64(s.periodStartMillis()).i64(s.expectedVersion()).string("actor", s.actor())
          .string("reason", s.reason());
    } else if (request instanceof QuotaRequest.GetQuota g) {
      w.string("scope", g.scope()).string("resource", g.resource()).bool(g.stale());
    } else if (request instanceof QuotaRequest.ListQuotas l) {
      w.string("scopePrefix", l.scopePrefix()).bool(l.stale());
    } else if (request instanceof QuotaRequest.QuotaHistory h) {
      w.string("scope", h.scope()).string("resource", h.resource());
    } else if (request instanceof QuotaRequest.Reserve r) {
      w.string("scope", r.scope()).u32("items.count", r.items().size());
      for (QuotaRequest.Item item : r.items()) {
        w.string("resource", item.resource()).i64(item.amount());
      }
      w.i64(r.configVersion()).i64(r.ttlMillis());
    } else if (request instanceof QuotaRequest.CompleteReservation c) {
      w.i64(c.reservationId());
      longs(w, "actuals", c.actuals());
    } else if (request instanceof QuotaRequest.CancelReservation c) {
      w.i64(c.reservationId());
    } else if (request instanceof QuotaRequest.ListReservations l) {
      w.string("scopePrefix", l.scopePrefix());
    } else if (request instanceof QuotaRequest.IngestUsage i) {
      w.string("eventId", i.eventId()).i64(i.eventTimeMillis()).string("scope", i.scope())
          .string("resource", i.resource()).i64(i.quantity()).string("unit", i.unit())
          .i64(i.reservationId());
    } else if (request instanceof QuotaRequest.ReadUsage r) {
      w.string("consumer", r.consumer()).i64(r.fromSequence()).i32(r.max());
    } else if (request instanceof QuotaRequest.AckUsage a) {
      w.string("consumer", a.consumer()).i64(a.sequence());
    } else if (request instanceof QuotaRequest.AggregateUsage a) {
      w.string("scope", a.scope()).string("resource", a.resource()).i64(a.fromMillis())
          .i64(a.toMillis());
    } else if (request instanceof QuotaRequest.Reconcile r) {
      w.string("scope", r.scope()).string("resource", r.resource()).i64(r.fromMillis())
          .i64(r.toMillis()).bool(r.repair()).string("actor", r.actor())
          .string("reason", r.reason());
    } else if (request instanceof QuotaRequest.ReadAudit a) {
      w.i64(a.fromSequence()).i32(a.max());
    } else {
      throw new IllegalArgumentException("unknown quota request " + request);
    }
  }

  static QuotaRequest decodeRequest(Kind kind, WireReader r) throws MalformedMessageException {
    switch (kind) {
      case QUOTA_SET:
        return new QuotaRequest.SetQuota(r.string("scope"), r.string("resource"),
            r.u8("kindCode"), r.u8("windowCode"), r.i64("limit"), r.string("unit"),
            r.i64("softLimit"), r.u8("overageCode"), r.i64("overageMax"),
            r.i64("periodStartMillis"), r.i64("expectedVersion"), r.string("actor"),
            r.string("reason"));
      case QUOTA_GET:
        return new QuotaRequest.GetQuota(r.string("scope"), r.string("resource"), r.bool("stale"));
      case QUOTA_LIST:
        return new QuotaRequest.ListQuotas(r.string("scopePrefix"), r.bool("stale"));
      case QUOTA_HISTORY:
        return new QuotaRequest.QuotaHistory(r.string("scope"), r.string("resource"));
      case RESERVE: {
        String scope = r.string("scope");
        int n = r.count("items.count", ITEM_BYTES_MIN);
        List<QuotaRequest.Item> items = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          items.add(new QuotaRequest.Item(r.string("items[" + i + "].resource"),
              r.i64("items[" + i + "].amount")));
        }
        return new QuotaRequest.Reserve(scope, items, r.i64("configVersion"), r.i64("ttlMillis"));
      }
      case RESERVATION_COMPLETE:
        return new QuotaRequest.CompleteReservation(r.i64("reservationId"), longs(r, "actuals"));
      case RESERVATION_CANCEL:
        return new QuotaRequest.CancelReservation(r.i64("reservationId"));
      case RESERVATION_LIST:
        return new QuotaRequest.ListReservations(r.string("scopePrefix"));
      case USAGE_INGEST:
        return new QuotaRequest.IngestUsage(r.string("eventId"), r.i64("eventTimeMillis"),
            r.string("scope"), r.string("resource"), r.i64("quantity"), r.string("unit"),
            r.i64("reservationId"));
      case USAGE_READ:
        return new QuotaRequest.ReadUsage(r.string("consumer"), r.i64("fromSequence"), r.i32("max"));
      case USAGE_ACK:
        return new QuotaRequest.AckUsage(r.string("consumer"), r.i64("sequence"));
      case USAGE_AGGREGATE:
        return new QuotaRequest.AggregateUsage(r.string("scope"), r.string("resource"),
            r.i64("fromMillis"), r.i64("toMillis"));
      case USAGE_RECONCILE:
        return new QuotaRequest.Reconcile(r.string("scope"), r.string("resource"),
            r.i64("fromMillis"), r.i64("toMillis"), r.bool("repair"), r.string("actor"),
            r.string("reason"));
      case AUDIT_READ:
        return new QuotaRequest.ReadAudit(r.i64("fromSequence"), r.i32("max"));
      default:
        throw new MalformedMessageException(kind.name(), "not a quota kind");
    }
  }

  // ---------------------------------------------------------------- responses

  static void encodeResponse(WireWriter w, QuotaResponse response) {
    if (response instanceof QuotaResponse.QuotaSetReply s) {
      outcome(w, s.outcome()).string("message", s.message()).i64(s.currentVersion());
      optionalQuota(w, s.quota());
    } else if (response instanceof QuotaResponse.QuotaFound f) {
      optionalQuota(w, f.quota());
    } else if (response instanceof QuotaResponse.QuotaList l) {
      w.u32("quotas.count", l.quotas().size());
      l.quotas().forEach(q -> quota(w, q));
    } else if (response instanceof QuotaResponse.ReserveReply r) {
      outcome(w, r.outcome()).string("message", r.message()).string("levelScope", r.levelScope())
          .string("resource", r.resource()).i64(r.retryAfterMillis()).i64(r.currentVersion())
          .i64(r.reservationId()).i64(r.expiresAtMillis()).i64(r.configVersion());
      items(w, r.items());
    } else if (response instanceof QuotaResponse.SettleReply s) {
      outcome(w, s.outcome()).string("message", s.message()).i64(s.reservationId())
          .u8("howCode", s.howCode());
      longs(w, "quantities", s.quantities());
      longs(w, "eventSequences", s.eventSequences());
      w.bool(s.alreadySettled());
    } else if (response instanceof QuotaResponse.ReservationList l) {
      w.u32("reservations.count", l.reservations().size());
      for (QuotaResponse.ReservationInfo r : l.reservations()) {
        w.i64(r.reservationId()).string("scope", r.scope()).i64(r.configVersion())
            .i64(r.createdAtMillis()).i64(r.expiresAtMillis());
        items(w, r.items());
      }
    } else if (response instanceof QuotaResponse.IngestReply i) {
      outcome(w, i.outcome()).string("message", i.message()).i64(i.sequence()).bool(i.duplicate());
    } else if (response instanceof QuotaResponse.UsageBatch b) {
      w.u32("events.count", b.events().size());
      for (QuotaResponse.UsageEventInfo e : b.events()) {
        w.i64(e.sequence()).string("eventId", e.eventId()).u8("typeCode", e.typeCode())
            .i64(e.eventTimeMillis()).i64(e.recordedAtMillis()).string("scope", e.scope())
            .string("resource", e.resource()).i64(e.quantity()).string("unit", e.unit())
            .i64(e.reservationId()).i64(e.overage());
      }
      w.i64(b.cursor()).i64(b.lastSequence());
    } else if (response instanceof QuotaResponse.AckReply a) {
      outcome(w, a.outcome()).string("message", a.message()).i64(a.cursor());
    } else if (response instanceof QuotaResponse.AggregateReply a) {
      w.u32("buckets.count", a.buckets().size());
      for (QuotaResponse.AggregateInfo b : a.buckets()) {
        w.string("scope", b.scope()).string("resource", b.resource()).i64(b.bucketStartMillis())
            .i64(b.quantity()).i64(b.events());
      }
      w.i64(a.total());
    } else if (response instanceof QuotaResponse.ReconcileReply r) {
      outcome(w, r.outcome()).string("message", r.message()).u32("drifts.count", r.drifts().size());
      for (QuotaResponse.DriftInfo d : r.drifts()) {
        w.string("kind", d.kind()).string("scope", d.scope()).string("resource", d.resource())
            .i64(d.reservationId()).i64(d.bucketStartMillis()).i64(d.expected())
            .i64(d.recorded()).i64(d.compensationSequence());
      }
    } else if (response instanceof QuotaResponse.AuditList a) {
      w.u32("records.count", a.records().size());
      for (QuotaResponse.AuditInfo x : a.records()) {
        w.i64(x.sequence()).i64(x.atMillis()).string("actor", x.actor())
            .string("action", x.action()).string("scope", x.scope())
            .string("resource", x.resource()).i64(x.version()).string("reason", x.reason())
            .string("detail", x.detail());
      }
    } else {
      throw new IllegalArgumentException("unknown quota response " + response);
    }
  }

  static QuotaResponse decodeResponse(Kind kind, WireReader r) throws MalformedMessageException {
    switch (kind) {
      case QUOTA_SET:
        return new QuotaResponse.QuotaSetReply(outcome(r), r.string("message"),
            r.i64("currentVersion"), optionalQuota(r));
      case QUOTA_GET:
        return new QuotaResponse.QuotaFound(optionalQuota(r));
      case QUOTA_LIST:
      case QUOTA_HISTORY: {
        int n = r.count("quotas.count", QUOTA_INFO_BYTES_MIN);
        List<QuotaResponse.QuotaInfo> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          list.add(quota(r));
        }
        return new QuotaResponse.QuotaList(list);
      }
      case RESERVE:
        return new QuotaResponse.ReserveReply(outcome(r), r.string("message"),
            r.string("levelScope"), r.string("resource"), r.i64("retryAfterMillis"),
            r.i64("currentVersion"), r.i64("reservationId"), r.i64("expiresAtMillis"),
            r.i64("configVersion"), items(r));
      case RESERVATION_COMPLETE:
      case RESERVATION_CANCEL:
        return new QuotaResponse.SettleReply(outcome(r), r.string("message"),
            r.i64("reservationId"), r.u8("howCode"), longs(r, "quantities"),
            longs(r, "eventSequences"), r.bool("alreadySettled"));
      case RESERVATION_LIST: {
        int n = r.count("reservations.count", RESERVATION_INFO_BYTES_MIN);
        List<QuotaResponse.ReservationInfo> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          list.add(new QuotaResponse.ReservationInfo(r.i64("reservationId"), r.string("scope"),
              r.i64("configVersion"), r.i64("createdAtMillis"), r.i64("expiresAtMillis"), items(r)));
        }
        return new QuotaResponse.ReservationList(list);
      }
      case USAGE_INGEST:
        return new QuotaResponse.IngestReply(outcome(r), r.string("message"), r.i64("sequence"),
            r.bool("duplicate"));
      case USAGE_READ: {
        int n = r.count("events.count", USAGE_EVENT_BYTES_MIN);
        List<QuotaResponse.UsageEventInfo> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          list.add(new QuotaResponse.UsageEventInfo(r.i64("sequence"), r.string("eventId"),
              r.u8("typeCode"), r.i64("eventTimeMillis"), r.i64("recordedAtMillis"),
              r.string("scope"), r.string("resource"), r.i64("quantity"), r.string("unit"),
              r.i64("reservationId"), r.i64("overage")));
        }
        return new QuotaResponse.UsageBatch(list, r.i64("cursor"), r.i64("lastSequence"));
      }
      case USAGE_ACK:
        return new QuotaResponse.AckReply(outcome(r), r.string("message"), r.i64("cursor"));
      case USAGE_AGGREGATE: {
        int n = r.count("buckets.count", AGGREGATE_INFO_BYTES_MIN);
        List<QuotaResponse.AggregateInfo> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          list.add(new QuotaResponse.AggregateInfo(r.string("scope"), r.string("resource"),
              r.i64("bucketStartMillis"), r.i64("quantity"), r.i64("events")));
        }
        return new QuotaResponse.AggregateReply(list, r.i64("total"));
      }
      case USAGE_RECONCILE: {
        Outcome outcome = outcome(r);
        String message = r.string("message");
        int n = r.count("drifts.count", DRIFT_INFO_BYTES_MIN);
        List<QuotaResponse.DriftInfo> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          list.add(new QuotaResponse.DriftInfo(r.string("kind"), r.string("scope"),
              r.string("resource"), r.i64("reservationId"), r.i64("bucketStartMillis"),
              r.i64("expected"), r.i64("recorded"), r.i64("compensationSequence")));
        }
        return new QuotaResponse.ReconcileReply(outcome, message, list);
      }
      case AUDIT_READ: {
        int n = r.count("records.count", AUDIT_INFO_BYTES_MIN);
        List<QuotaResponse.AuditInfo> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          list.add(new QuotaResponse.AuditInfo(r.i64("sequence"), r.i64("atMillis"),
              r.string("actor"), r.string("action"), r.string("scope"), r.string("resource"),
              r.i64("version"), r.string("reason"), r.string("detail")));
        }
        return new QuotaResponse.AuditList(list);
      }
      default:
        throw new MalformedMessageException(kind.name(), "not a quota kind");
    }
  }

  // ---------------------------------------------------------------- structs

  private static WireWriter outcome(WireWriter w, Outcome o) {
    return w.u8("outcome", o.code());
  }

  private static Outcome outcome(WireReader r) throws MalformedMessageException {
    int code = r.u8("outcome");
    for (Outcome o : Outcome.values()) {
      if (o.code() == code) {
        return o;
      }
    }
    throw new MalformedMessageException(r.message() + ".outcome", "unknown outcome code " + code);
  }

  private static void longs(WireWriter w, String field, List<Long> values) {
    w.u32(field + ".count", values.size());
    values.forEach(w::i64);
  }

  private static List<Long> longs(WireReader r, String field) throws MalformedMessageException {
    int n = r.count(field + ".count", 8);
    List<Long> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(r.i64(field + "[" + i + "]"));
    }
    return out;
  }

  private static void items(WireWriter w, List<QuotaResponse.ReservedItem> items) {
    w.u32("items.count", items.size());
    for (QuotaResponse.ReservedItem i : items) {
      w.string("resource", i.resource()).i64(i.amount()).i64(i.overage()).string("unit", i.unit());
    }
  }

  private static List<QuotaResponse.ReservedItem> items(WireReader r)
      throws MalformedMessageException {
    int n = r.count("items.count", RESERVED_ITEM_BYTES_MIN);
    List<QuotaResponse.ReservedItem> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(new QuotaResponse.ReservedItem(r.string("resource"), r.i64("amount"),
          r.i64("overage"), r.string("unit")));
    }
    return out;
  }

  private static void optionalQuota(WireWriter w, Optional<QuotaResponse.QuotaInfo> q) {
    w.bool(q.isPresent());
    q.ifPresent(info -> quota(w, info));
  }

  private static Optional<QuotaResponse.QuotaInfo> optionalQuota(WireReader r)
      throws MalformedMessageException {
    return r.present("quota") ? Optional.of(quota(r)) : Optional.empty();
  }

  private static void quota(WireWriter w, QuotaResponse.QuotaInfo q) {
    w.string("scope", q.scope()).string("resource", q.resource()).u8("kindCode", q.kindCode())
        .u8("windowCode", q.windowCode()).i64(q.limit()).string("unit", q.unit())
        .i64(q.softLimit()).u8("overageCode", q.overageCode()).i64(q.overageMax())
        .i64(q.periodStartMillis()).i64(q.version()).string("actor", q.actor())
        .i64(q.changedAtMillis()).string("reason", q.reason()).i64(q.windowStartMillis())
        .i64(q.windowUsed()).i64(q.held()).i64(q.allocated()).bool(q.alerted());
  }

  private static QuotaResponse.QuotaInfo quota(WireReader r) throws MalformedMessageException {
    return new QuotaResponse.QuotaInfo(r.string("scope"), r.string("resource"), r.u8("kindCode"),
        r.u8("windowCode"), r.i64("limit"), r.string("unit"), r.i64("softLimit"),
        r.u8("overageCode"), r.i64("overageMax"), r.i64("periodStartMillis"), r.i64("version"),
        r.string("actor"), r.i64("changedAtMillis"), r.string("reason"),
        r.i64("windowStartMillis"), r.i64("windowUsed"), r.i64("held"), r.i64("allocated"),
        r.bool("alerted"));
  }
}
