package dev.ration.statemachine.command;

import dev.ration.statemachine.quota.QuotaFormat;
import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * Log format of the quota commands, the fields after the command code (BatchCodec writes the
 * code and delegates codes 40–59 here). Pinned by a golden-bytes test.
 *
 * <pre>
 *   SetQuota (40)            str scope, str resource, u8 kind, u8 window, i64 limit, str unit,
 *                            i64 softLimit, u8 overage, i64 overageMax, i64 periodStartMillis,
 *                            i64 expectedVersion, str actor, str reason
 *   Reserve (41)             str scope, i64 configVersion, i64 ttlMillis,
 *                            u16 n × (str resource, i64 amount)
 *   CompleteReservation (42) i64 reservationId, u16 n × i64 actual
 *   CancelReservation (43)   i64 reservationId
 *   IngestUsage (44)         str eventId, i64 eventTimeMillis, str scope, str resource,
 *                            i64 quantity, str unit, i64 reservationId
 *   AckUsage (45)            str consumer, i64 sequence
 *   Reconcile (46)           str scope, str resource, i64 fromMillis, i64 toMillis, str actor,
 *                            str reason
 *   Reserve, keyed (47)      the fields of Reserve (41), then str idempotencyKey
 * </pre>
 */
public final class QuotaCommandCodec {
  private QuotaCommandCodec() {}

  public static boolean isQuotaCode(int code) {
    return code >= QuotaCommand.FIRST_CODE && code <= QuotaCommand.LAST_CODE;
  }

  public static void encode(ByteWriter out, QuotaCommand command) {
    if (command instanceof SetQuota c) {
      out.str(c.scope()).str(c.resource()).u8(c.kind().code()).u8(c.window().code())
          .i64(c.limit()).str(c.unit()).i64(c.softLimit()).u8(c.overage().code())
          .i64(c.overageMax()).i64(c.periodStartMillis()).i64(c.expectedVersion())
          .str(c.actor()).str(c.reason());
    } else if (command instanceof Reserve c) {
      out.str(c.scope()).i64(c.configVersion()).i64(c.ttlMillis()).u16(c.items().size());
      for (Reserve.Item item : c.items()) {
        out.str(item.resource()).i64(item.amount());
      }
      if (c.keyed()) {
        out.str(c.idempotencyKey());
      }
    } else if (command instanceof CompleteReservation c) {
      out.i64(c.reservationId()).u16(c.actuals().size());
      for (long actual : c.actuals()) {
        out.i64(actual);
      }
    } else if (command instanceof CancelReservation c) {
      out.i64(c.reservationId());
    } else if (command instanceof IngestUsage c) {
      out.str(c.eventId()).i64(c.eventTimeMillis()).str(c.scope()).str(c.resource())
          .i64(c.quantity()).str(c.unit()).i64(c.reservationId());
    } else if (command instanceof AckUsage c) {
      out.str(c.consumer()).i64(c.sequence());
    } else if (command instanceof Reconcile c) {
      out.str(c.scope()).str(c.resource()).i64(c.fromMillis()).i64(c.toMillis()).str(c.actor())
          .str(c.reason());
    } else {
      throw new IllegalStateException("unhandled quota command " + command);
    }
  }

  /** Decodes the fields of command {@code code} (one of 40–59); unknown codes fail. */
  public static QuotaCommand decode(int code, ByteReader in) {
    switch (code) {
      case SetQuota.CODE: {
        String scope = in.str("scope");
        String resource = in.str("resource");
        var kind = QuotaFormat.kind(in);
        var window = QuotaFormat.window(in);
        long limit = in.i64("limit");
        String unit = in.str("unit");
        long soft = in.i64("softLimit");
        var overage = QuotaFormat.overage(in);
        return new SetQuota(scope, resource, kind, window, limit, unit, soft, overage,
            in.i64("overageMax"), in.i64("periodStartMillis"), in.i64("expectedVersion"),
            in.str("actor"), in.str("reason"));
      }
      case Reserve.CODE:
      case Reserve.KEYED_CODE: {
        String scope = in.str("scope");
        long version = in.i64("configVersion");
        long ttl = in.i64("ttlMillis");
        int n = in.u16("items");
        if (n > in.remaining() / 10) {
          throw in.fail("declared " + n + " reserve items, only " + in.remaining() + " bytes left");
        }
        List<Reserve.Item> items = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          items.add(new Reserve.Item(in.str("resource"), in.i64("amount")));
        }
        String key = code == Reserve.KEYED_CODE ? in.str("idempotencyKey") : "";
        if (code == Reserve.KEYED_CODE && key.isEmpty()) {
          throw in.fail("a keyed Reserve (47) with an empty idempotencyKey");
        }
        return new Reserve(scope, items, version, ttl, key);
      }
      case CompleteReservation.CODE: {
        long id = in.i64("reservationId");
        int n = in.u16("actuals");
        if (n > in.remaining() / 8) {
          throw in.fail("declared " + n + " actuals, only " + in.remaining() + " bytes left");
        }
        List<Long> actuals = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          actuals.add(in.i64("actual"));
        }
        return new CompleteReservation(id, actuals);
      }
      case CancelReservation.CODE:
        return new CancelReservation(in.i64("reservationId"));
      case IngestUsage.CODE:
        return new IngestUsage(in.str("eventId"), in.i64("eventTimeMillis"), in.str("scope"),
            in.str("resource"), in.i64("quantity"), in.str("unit"), in.i64("reservationId"));
      case AckUsage.CODE:
        return new AckUsage(in.str("consumer"), in.i64("sequence"));
      case Reconcile.CODE:
        return new Reconcile(in.str("scope"), in.str("resource"), in.i64("fromMillis"),
            in.i64("toMillis"), in.str("actor"), in.str("reason"));
      default:
        throw in.fail("unknown quota command code " + code);
    }
  }
}
