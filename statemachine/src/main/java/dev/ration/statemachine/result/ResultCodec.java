package dev.ration.statemachine.result;

import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;
import dev.ration.wire.shape.ShapeTable;
import java.util.Set;

/**
 * The stored form of a {@link Result}, kept in idempotency records so that a retried request
 * gets its first answer back byte for byte (pinned by a golden-bytes test). Big-endian:
 *
 * <pre>
 * u8 formatVersion (1) | u8 result code | fields
 *   LimitSet (1)      limit
 *   LeaseGranted (2)  lease, i64 startBalance
 *   LeaseRenewed (3)  lease
 *   LeaseReturned (4) i64 leaseId, i64 credited, u8 alreadyGone
 *   EpochStarted (5)  i64 epoch, i64 epochStartMillis
 *   Ticked (6)        i32 freed
 *   Rejected (7)      u8 outcome, str message, i64 retryAfterMillis, i64 currentVersion
 *   EntryWritten (20) str namespace, str key, i64 version, i64 expiresAtMillis
 *   EntryDeleted (21) str namespace, str key, i64 version, u8 existed
 *   NamespaceSet (22) namespace
 *   namespace = str name, i64 maxEntries, i64 maxBytes, u8 policy, i64 entries, i64 bytes,
 *               i64 evictedExpired, i64 evictedCapacity
 *   QuotaSet (40)           spec
 *   Reserved (41)           i64 reservationId, str scope, i64 expiresAt, i64 configVersion,
 *                           u16 n × (str resource, i64 amount, i64 overage, str unit)
 *   ReservationSettled (42) i64 reservationId, u8 how, u16 n × i64 quantity,
 *                           u16 m × i64 eventSequence, u8 alreadySettled
 *   UsageIngested (43)      i64 sequence, u8 duplicate
 *   UsageAcked (44)         str consumer, i64 cursor
 *   Reconciled (45)         u16 n × drift
 *   QuotaRejected (46)      u8 outcome, str message, str levelScope, str resource,
 *                           i64 retryAfterMillis, i64 currentVersion
 *   BudgetGranted (47)      i64 budgetId, str scope, str resource, i64 granted,
 *                           i64 expiresAt, i64 windowEnd, i64 configVersion, i64 at,
 *                           i64 overdraft
 *   BudgetReported (48)     budget report = i64 budgetId, i64 granted, i64 spent, i64 expiresAt,
 *                           i64 windowEnd, u8 ended, u8 resent, i64 eventSequence, i64 at
 *   BudgetReturned (49)     i64 budgetId, i64 spent, i64 released, i64 eventSequence
 *   BudgetsReported (50)    u16 n × (u8 outcome, str message, u8 present, [budget report])
 *   ReservedBatch (51)      u16 n × (u8 present, [Reserved's fields], u8 present,
 *                           [QuotaRejected's fields]): exactly one present
 * spec  = str scope, str resource, u8 kind, u8 window, i64 limit, str unit, i64 softLimit,
 *         u8 overage, i64 overageMax, i64 periodStartMillis, i64 version, str actor,
 *         i64 changedAtMillis, str reason
 * drift = str kind, str scope, str resource, i64 reservationId, i64 bucketStartMillis,
 *         i64 expected, i64 recorded, i64 compensationSequence
 * limit = str tenant, str resource, i64 ratePerSecond, i64 burst, u8 mode,
 *         i64 leaseDurationMillis, i64 graceMillis, i64 emergency, u8 policy, i64 version
 * lease = i64 leaseId, str tenant, str resource, str holder, i64 epoch, i64 version,
 *         i64 rateShare, i64 burstShare, i64 countedRate, i64 countedBurst, i64 grantedAtMillis,
 *         i64 expiresAtMillis, i64 countedUntilMillis, u8 mode, i64 emergency,
 *         i64 leaseDurationMillis
 * </pre>
 *
 * Each result's fields are its record's SHAPE (a quota result's are the wrapped
 * {@link QuotaResult}'s); the values shared with the protocol (limit, lease, namespace, spec,
 * drift) are encoded by their own shapes in {@code wire}, the same bytes both carry.
 */
public final class ResultCodec {
  public static final int FORMAT_VERSION = 1;

  /** Every result's shape by its code; the quota wrapper has none of its own. */
  private static final ShapeTable<Result> RESULTS =
      ShapeTable.ofSealed(Result.class, Set.of(Result.Quota.class));

  private static final ShapeTable<QuotaResult> QUOTA_RESULTS =
      ShapeTable.ofSealed(QuotaResult.class, Set.of());

  private ResultCodec() {}

  public static byte[] encode(Result result) {
    ByteWriter out = new ByteWriter(128);
    int code = result.code();
    out.u8(FORMAT_VERSION).u8(code);
    if (result instanceof Result.Quota quota) {
      QUOTA_RESULTS.write(out, code, quota.result());
    } else {
      RESULTS.write(out, code, result);
    }
    return out.toByteArray();
  }

  /** Decodes a stored result; corrupt bytes throw {@link ResultFormatException} naming the field. */
  public static Result decode(byte[] bytes) {
    ByteReader in = new ByteReader(bytes, "result", ResultFormatException::new);
    int format = in.u8("formatVersion");
    if (format != FORMAT_VERSION) {
      throw in.fail("unknown result format version " + format + ", expected " + FORMAT_VERSION);
    }
    int code = in.u8("result code");
    Result result =
        QUOTA_RESULTS.knows(code)
            ? new Result.Quota(QUOTA_RESULTS.read(in, code, "result"))
            : RESULTS.read(in, code, "result");
    in.end();
    return result;
  }
}
