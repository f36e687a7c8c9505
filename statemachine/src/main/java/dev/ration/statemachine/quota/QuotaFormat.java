package dev.ration.statemachine.quota;

import dev.ration.statemachine.query.LevelUsage;

import dev.ration.statemachine.query.LevelCharge;

import dev.ration.statemachine.query.ReservationItem;

import dev.ration.statemachine.query.Reservation;

import dev.ration.wire.quota.UsageEvent;

import dev.ration.wire.quota.AuditRecord;

import dev.ration.wire.EventType;
import dev.ration.wire.quota.QuotaSpec;


import dev.ration.statemachine.StoreException;
import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * Encodings of the quota ledger's values, shared by the log format (commands), the result
 * format (idempotency records, pinned by golden tests) and the store. Big-endian; strings are
 * u16 length + UTF-8; lists are u16 count + elements; enums by their explicit codes.
 *
 * <pre>
 * spec        str scope, str resource, u8 kind, u8 window, i64 limit, str unit, i64 softLimit,
 *             u8 overage, i64 overageMax, i64 periodStart, i64 version, str actor,
 *             i64 changedAt, str reason
 * usage       str scope, str resource, i64 windowStart, i64 windowUsed, i64 held,
 *             i64 allocated, u8 alerted
 * reservation i64 id, str scope, i64 configVersion, i64 createdAt, i64 expiresAt,
 *             u16 n × (str resource, i64 amount, i64 overage, str unit,
 *                      u16 m × (str levelScope, i64 windowStart))
 * settlement  i64 id, str scope, u8 how, i64 settledAt, u16 n × (str resource, i64 quantity)
 * event       i64 sequence, str eventId, u8 type, i64 eventTime, i64 recordedAt, str scope,
 *             str resource, i64 quantity, str unit, i64 reservationId, i64 overage
 * audit       i64 sequence, i64 at, str actor, str action, str scope, str resource,
 *             i64 version, str reason, str detail
 * </pre>
 */
public final class QuotaFormat {
  /** First byte of every stored quota value. */
  public static final int STORE_FORMAT_VERSION = 1;

  private QuotaFormat() {}

  public static void writeSpec(ByteWriter out, QuotaSpec s) {
    QuotaSpec.SHAPE.write(out, s);
  }

  public static QuotaSpec readSpec(ByteReader in) {
    return QuotaSpec.SHAPE.read(in);
  }

  public static EventType eventType(ByteReader in) {
    int code = in.u8("event type");
    for (EventType t : EventType.values()) {
      if (t.code() == code) {
        return t;
      }
    }
    throw in.fail("unknown usage event type code " + code);
  }

  public static void writeUsage(ByteWriter out, LevelUsage u) {
    out.str(u.scope()).str(u.resource()).i64(u.windowStartMillis()).i64(u.windowUsed())
        .i64(u.held()).i64(u.allocated()).bool(u.alerted());
  }

  public static LevelUsage readUsage(ByteReader in) {
    return new LevelUsage(in.str("scope"), in.str("resource"), in.i64("windowStart"),
        in.i64("windowUsed"), in.i64("held"), in.i64("allocated"), in.bool("alerted"));
  }

  public static void writeReservation(ByteWriter out, Reservation r) {
    out.i64(r.reservationId()).str(r.scope()).i64(r.configVersion()).i64(r.createdAtMillis())
        .i64(r.expiresAtMillis()).u16(r.items().size());
    for (ReservationItem item : r.items()) {
      out.str(item.resource()).i64(item.amount()).i64(item.overage()).str(item.unit())
          .u16(item.charges().size());
      for (LevelCharge c : item.charges()) {
        out.str(c.levelScope()).i64(c.windowStartMillis());
      }
    }
  }

  public static Reservation readReservation(ByteReader in) {
    long id = in.i64("reservationId");
    String scope = in.str("scope");
    long version = in.i64("configVersion");
    long created = in.i64("createdAt");
    long expires = in.i64("expiresAt");
    int n = in.u16("items");
    List<ReservationItem> items = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      String resource = in.str("resource");
      long amount = in.i64("amount");
      long overage = in.i64("overage");
      String unit = in.str("unit");
      int m = in.u16("charges");
      List<LevelCharge> charges = new ArrayList<>(m);
      for (int j = 0; j < m; j++) {
        charges.add(new LevelCharge(in.str("levelScope"), in.i64("windowStart")));
      }
      items.add(new ReservationItem(resource, amount, overage, unit, charges));
    }
    return new Reservation(id, scope, items, version, created, expires);
  }

  public static void writeSettlement(ByteWriter out, Settlement s) {
    out.i64(s.reservationId()).str(s.scope()).u8(s.how().code()).i64(s.settledAtMillis())
        .u16(s.resources().size());
    for (int i = 0; i < s.resources().size(); i++) {
      out.str(s.resources().get(i)).i64(s.quantities().get(i));
    }
  }

  public static Settlement readSettlement(ByteReader in) {
    long id = in.i64("reservationId");
    String scope = in.str("scope");
    EventType how = eventType(in);
    long at = in.i64("settledAt");
    int n = in.u16("items");
    List<String> resources = new ArrayList<>(n);
    List<Long> quantities = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      resources.add(in.str("resource"));
      quantities.add(in.i64("quantity"));
    }
    return new Settlement(id, scope, how, at, resources, quantities);
  }

  public static void writeEvent(ByteWriter out, UsageEvent e) {
    out.i64(e.sequence()).str(e.eventId()).u8(e.type().code()).i64(e.eventTimeMillis())
        .i64(e.recordedAtMillis()).str(e.scope()).str(e.resource()).i64(e.quantity())
        .str(e.unit()).i64(e.reservationId()).i64(e.overage());
  }

  public static UsageEvent readEvent(ByteReader in) {
    long seq = in.i64("sequence");
    String id = in.str("eventId");
    EventType type = eventType(in);
    return new UsageEvent(seq, id, type, in.i64("eventTime"), in.i64("recordedAt"),
        in.str("scope"), in.str("resource"), in.i64("quantity"), in.str("unit"),
        in.i64("reservationId"), in.i64("overage"));
  }

  public static void writeAudit(ByteWriter out, AuditRecord a) {
    out.i64(a.sequence()).i64(a.atMillis()).str(a.actor()).str(a.action()).str(a.scope())
        .str(a.resource()).i64(a.version()).str(a.reason()).str(a.detail());
  }

  public static AuditRecord readAudit(ByteReader in) {
    return new AuditRecord(in.i64("sequence"), in.i64("at"), in.str("actor"), in.str("action"),
        in.str("scope"), in.str("resource"), in.i64("version"), in.str("reason"),
        in.str("detail"));
  }

  // ------------------------------------------------------------ store values

  /** A stored value: the format byte, then the encoded body. */
  static byte[] stored(java.util.function.Consumer<ByteWriter> body) {
    ByteWriter out = new ByteWriter(96).u8(STORE_FORMAT_VERSION);
    body.accept(out);
    return out.toByteArray();
  }

  /** A reader over a stored value, past its checked format byte. */
  static ByteReader storedReader(byte[] value, String what) {
    ByteReader in = new ByteReader(value, what,
        message -> new StoreException("corrupt quota record " + message));
    int format = in.u8("formatVersion");
    if (format != STORE_FORMAT_VERSION) {
      throw in.fail("unknown quota store format " + format + ", expected " + STORE_FORMAT_VERSION);
    }
    return in;
  }
}
