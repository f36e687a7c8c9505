package dev.ration.statemachine.lease;

import dev.ration.wire.lease.Limit;

import dev.ration.statemachine.StoreException;
import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;

/**
 * The lease ledger's stored records, in the two column families it owns (big-endian):
 *
 * <pre>
 * limits   key  str tenant | str resource
 *          val  u8 2 | limit (Limit.SHAPE) | i64 pool | i64 rateCeiling | i64 burstCeiling
 *                    | i64 emergencyReported
 * leases   key  i64 leaseId (sign-flipped, so byte order = numeric order)
 *          val  u8 3 | str tenant | str resource | str holder | i64 epoch | i64 version
 *                    | i64 rateShare | i64 burstShare | i64 grantedAt | i64 expiresAt
 *                    | i64 countedUntil | i64 pendingRate | i64 pendingBurst | i64 pendingUntil
 *                    | i64 demandRate | i64 demandBurst
 * </pre>
 *
 * A lease value of version 2 (without the two demand fields, written before the demand-driven
 * allocation policies existed) is still read, with demand 0; the holder's next renewal replaces
 * it. The ledger writes these records through the entry's {@code Changes} like every other
 * ledger, and reads them back at open through the family store.
 */
public final class LeaseFormat {
  /** Column family of the limits. */
  public static final String LIMITS = "limits";
  /** Column family of the leases. */
  public static final String LEASES = "leases";

  static final int LIMIT_FORMAT_VERSION = 2;
  /** Version 3 = version 2 + demandRate, demandBurst. */
  public static final int LEASE_FORMAT_VERSION = 3;
  private static final int OLD_LEASE_FORMAT_VERSION = 2;

  private LeaseFormat() {}

  /** A limit as stored: its configuration and the ledger figures that outlive a restart. */
  public record StoredLimit(Limit limit, long pool, long rateCeiling, long burstCeiling,
      long emergencyReported) {}

  private static long flip(long value) {
    return value ^ Long.MIN_VALUE;
  }

  private static ByteReader reader(byte[] bytes, String what) {
    return new ByteReader(bytes, what, message -> new StoreException("corrupt store record " + message));
  }

  public static byte[] limitKey(LimitKey key) {
    return new ByteWriter(64).str(key.tenant()).str(key.resource()).toByteArray();
  }

  static byte[] limitValue(LimitLedger ledger) {
    return limitValue(new StoredLimit(ledger.limit(), ledger.pool(), ledger.rateCeiling(),
        ledger.burstCeiling(), ledger.emergencyReported()));
  }

  /** The inverse of {@link #readLimit}. */
  public static byte[] limitValue(StoredLimit stored) {
    ByteWriter out = new ByteWriter(128).u8(LIMIT_FORMAT_VERSION);
    Limit.SHAPE.write(out, stored.limit());
    return out.i64(stored.pool()).i64(stored.rateCeiling()).i64(stored.burstCeiling())
        .i64(stored.emergencyReported()).toByteArray();
  }

  public static StoredLimit readLimit(byte[] value) {
    ByteReader in = reader(value, "limit");
    int format = in.u8("formatVersion");
    if (format != LIMIT_FORMAT_VERSION) {
      throw in.fail("unknown limit format version " + format + ", expected " + LIMIT_FORMAT_VERSION);
    }
    StoredLimit stored = new StoredLimit(Limit.SHAPE.read(in), in.i64("pool"),
        in.i64("rateCeiling"), in.i64("burstCeiling"), in.i64("emergencyReported"));
    in.end();
    return stored;
  }

  public static byte[] leaseKey(long leaseId) {
    return new ByteWriter(8).i64(flip(leaseId)).toByteArray();
  }

  public static byte[] leaseValue(Lease l) {
    return new ByteWriter(144).u8(LEASE_FORMAT_VERSION).str(l.tenant()).str(l.resource())
        .str(l.holder()).i64(l.epoch()).i64(l.version()).i64(l.rateShare()).i64(l.burstShare())
        .i64(l.grantedAtMillis()).i64(l.expiresAtMillis()).i64(l.countedUntilMillis())
        .i64(l.pendingRate()).i64(l.pendingBurst()).i64(l.pendingUntilMillis())
        .i64(l.demandRatePerSecond()).i64(l.demandBurst()).toByteArray();
  }

  public static Lease readLease(byte[] key, byte[] value) {
    ByteReader k = reader(key, "lease key");
    long leaseId = flip(k.i64("leaseId"));
    k.end();
    ByteReader in = reader(value, "lease " + leaseId);
    int format = in.u8("formatVersion");
    if (format != LEASE_FORMAT_VERSION && format != OLD_LEASE_FORMAT_VERSION) {
      throw in.fail("unknown lease format version " + format + ", expected "
          + LEASE_FORMAT_VERSION + " or " + OLD_LEASE_FORMAT_VERSION);
    }
    String tenant = in.str("tenant");
    String resource = in.str("resource");
    String holder = in.str("holder");
    long epoch = in.i64("epoch");
    long version = in.i64("version");
    long rateShare = in.i64("rateShare");
    long burstShare = in.i64("burstShare");
    long grantedAt = in.i64("grantedAt");
    long expiresAt = in.i64("expiresAt");
    long countedUntil = in.i64("countedUntil");
    long pendingRate = in.i64("pendingRate");
    long pendingBurst = in.i64("pendingBurst");
    long pendingUntil = in.i64("pendingUntil");
    long demandRate = format == LEASE_FORMAT_VERSION ? in.i64("demandRate") : 0;
    long demandBurst = format == LEASE_FORMAT_VERSION ? in.i64("demandBurst") : 0;
    in.end();
    return new Lease(leaseId, tenant, resource, holder, epoch, version, rateShare,
        burstShare, grantedAt, expiresAt, countedUntil, pendingRate, pendingBurst, pendingUntil,
        demandRate, demandBurst);
  }
}
