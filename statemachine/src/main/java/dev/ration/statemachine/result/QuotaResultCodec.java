package dev.ration.statemachine.result;

import dev.ration.wire.Outcome;

import dev.ration.statemachine.quota.Drift;
import dev.ration.wire.EventType;
import dev.ration.statemachine.quota.QuotaFormat;
import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * Stored form of the quota results, the fields after the result code (ResultCodec writes the
 * format byte and the code and delegates codes 40–59 here). Pinned by a golden-bytes test.
 *
 * <pre>
 *   QuotaSet (40)           spec (QuotaFormat)
 *   Reserved (41)           i64 reservationId, str scope, i64 expiresAt, i64 configVersion,
 *                           u16 n × (str resource, i64 amount, i64 overage, str unit)
 *   ReservationSettled (42) i64 reservationId, u8 how, u16 n × i64 quantity,
 *                           u16 m × i64 eventSequence, u8 alreadySettled
 *   UsageIngested (43)      i64 sequence, u8 duplicate
 *   UsageAcked (44)         str consumer, i64 cursor
 *   Reconciled (45)         u16 n × drift (QuotaFormat)
 *   QuotaRejected (46)      u8 outcome, str message, str levelScope, str resource,
 *                           i64 retryAfterMillis, i64 currentVersion
 * </pre>
 */
public final class QuotaResultCodec {
  private QuotaResultCodec() {}

  public static boolean isQuotaCode(int code) {
    return code >= 40 && code <= 59;
  }

  public static void encode(ByteWriter out, QuotaResult result) {
    if (result instanceof QuotaResult.QuotaSet r) {
      QuotaFormat.writeSpec(out, r.spec());
    } else if (result instanceof QuotaResult.Reserved r) {
      out.i64(r.reservationId()).str(r.scope()).i64(r.expiresAtMillis()).i64(r.configVersion())
          .u16(r.items().size());
      for (QuotaResult.Reserved.Item item : r.items()) {
        out.str(item.resource()).i64(item.amount()).i64(item.overage()).str(item.unit());
      }
    } else if (result instanceof QuotaResult.ReservationSettled r) {
      out.i64(r.reservationId()).u8(r.how().code()).u16(r.quantities().size());
      r.quantities().forEach(out::i64);
      out.u16(r.eventSequences().size());
      r.eventSequences().forEach(out::i64);
      out.bool(r.alreadySettled());
    } else if (result instanceof QuotaResult.UsageIngested r) {
      out.i64(r.sequence()).bool(r.duplicate());
    } else if (result instanceof QuotaResult.UsageAcked r) {
      out.str(r.consumer()).i64(r.cursor());
    } else if (result instanceof QuotaResult.Reconciled r) {
      out.u16(r.drifts().size());
      r.drifts().forEach(d -> QuotaFormat.writeDrift(out, d));
    } else if (result instanceof QuotaResult.QuotaRejected r) {
      out.u8(r.outcome().code()).str(r.message()).str(r.levelScope()).str(r.resource())
          .i64(r.retryAfterMillis()).i64(r.currentVersion());
    } else {
      throw new IllegalStateException("unhandled quota result " + result);
    }
  }

  public static QuotaResult decode(int code, ByteReader in) {
    switch (code) {
      case 40:
        return new QuotaResult.QuotaSet(QuotaFormat.readSpec(in));
      case 41: {
        long id = in.i64("reservationId");
        String scope = in.str("scope");
        long expires = in.i64("expiresAtMillis");
        long version = in.i64("configVersion");
        int n = in.u16("items");
        List<QuotaResult.Reserved.Item> items = new ArrayList<>(Math.min(n, 64));
        for (int i = 0; i < n; i++) {
          items.add(new QuotaResult.Reserved.Item(in.str("resource"), in.i64("amount"),
              in.i64("overage"), in.str("unit")));
        }
        return new QuotaResult.Reserved(id, scope, expires, version, items);
      }
      case 42: {
        long id = in.i64("reservationId");
        EventType how = QuotaFormat.eventType(in);
        List<Long> quantities = longs(in, "quantities");
        List<Long> sequences = longs(in, "eventSequences");
        return new QuotaResult.ReservationSettled(id, how, quantities, sequences,
            in.bool("alreadySettled"));
      }
      case 43:
        return new QuotaResult.UsageIngested(in.i64("sequence"), in.bool("duplicate"));
      case 44:
        return new QuotaResult.UsageAcked(in.str("consumer"), in.i64("cursor"));
      case 45: {
        int n = in.u16("drifts");
        List<Drift> drifts = new ArrayList<>(Math.min(n, 64));
        for (int i = 0; i < n; i++) {
          drifts.add(QuotaFormat.readDrift(in));
        }
        return new QuotaResult.Reconciled(drifts);
      }
      case 46: {
        int outcomeCode = in.u8("outcome");
        Outcome outcome;
        try {
          outcome = Outcome.fromCode(outcomeCode);
        } catch (IllegalArgumentException e) {
          throw in.fail("unknown outcome code " + outcomeCode);
        }
        return new QuotaResult.QuotaRejected(outcome, in.str("message"), in.str("levelScope"),
            in.str("resource"), in.i64("retryAfterMillis"), in.i64("currentVersion"));
      }
      default:
        throw in.fail("unknown quota result code " + code);
    }
  }

  private static List<Long> longs(ByteReader in, String field) {
    int n = in.u16(field);
    if (n > in.remaining() / 8) {
      throw in.fail("declared " + n + " " + field + ", only " + in.remaining() + " bytes left");
    }
    List<Long> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(in.i64(field));
    }
    return out;
  }
}
