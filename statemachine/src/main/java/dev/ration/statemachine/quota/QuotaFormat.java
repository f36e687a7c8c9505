package dev.ration.statemachine.quota;

import dev.ration.statemachine.query.LevelUsage;
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
 * The quota ledger's stored values: a format byte, then the value's {@code SHAPE} (spec, level
 * usage, reservation, usage event, audit record; a settlement's parallel lists are written here
 * by hand). The layouts below are pinned by golden tests. Big-endian; strings are
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

  public static void writeUsage(ByteWriter out, LevelUsage value) {
    LevelUsage.SHAPE.write(out, value);
  }

  public static LevelUsage readUsage(ByteReader in) {
    return LevelUsage.SHAPE.read(in);
  }

  public static void writeReservation(ByteWriter out, Reservation value) {
    Reservation.SHAPE.write(out, value);
  }

  public static Reservation readReservation(ByteReader in) {
    return Reservation.SHAPE.read(in);
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

  public static void writeEvent(ByteWriter out, UsageEvent value) {
    UsageEvent.SHAPE.write(out, value);
  }

  public static UsageEvent readEvent(ByteReader in) {
    return UsageEvent.SHAPE.read(in);
  }

  public static void writeAudit(ByteWriter out, AuditRecord value) {
    AuditRecord.SHAPE.write(out, value);
  }

  public static AuditRecord readAudit(ByteReader in) {
    return AuditRecord.SHAPE.read(in);
  }

  // ------------------------------------------------------------ store values

  /** A stored value: the format byte, then the encoded body. */
  static byte[] stored(java.util.function.Consumer<ByteWriter> body) {
    ByteWriter out = new ByteWriter(96).u8(STORE_FORMAT_VERSION);
    body.accept(out);
    return out.toByteArray();
  }

  /**
   * The value stored as {@code value}, read by {@code reader}; bytes left over after it are
   * corruption, not padding.
   */
  static <T> T read(byte[] value, String what, java.util.function.Function<ByteReader, T> reader) {
    ByteReader in = storedReader(value, what);
    T out = reader.apply(in);
    if (in.remaining() != 0) {
      throw in.fail(in.remaining() + " trailing bytes after the " + what);
    }
    return out;
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
