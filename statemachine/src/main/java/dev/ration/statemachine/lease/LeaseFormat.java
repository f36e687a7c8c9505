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
 * A limit with a concurrency cap is written as format 3, format 2 followed by
 * {@code i64 concurrency | i64 slotCeiling}; a lease holding or counting slots as format 4,
 * format 3 followed by {@code i64 slotShare | i64 pendingSlots | i64 demandSlots}. Records
 * without slots keep the older formats byte for byte (a format-3 limit or format-4 lease whose
 * slot fields are all 0 is refused as corrupt: one value, one encoding).
 *
 * <p>A lease value of version 2 (without the two demand fields, written before the demand-driven
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
  /** Version 3 = version 2 + concurrency, slotCeiling; written only when either is not 0. */
  static final int SLOT_LIMIT_FORMAT_VERSION = 3;
  /** Version 4 = version 3 + slotShare, pendingSlots, demandSlots; only when one is not 0. */
  public static final int SLOT_LEASE_FORMAT_VERSION = 4;
  /** Version 3 = version 2 + demandRate, demandBurst. */
  public static final int LEASE_FORMAT_VERSION = 3;
  private static final int OLD_LEASE_FORMAT_VERSION = 2;

  private LeaseFormat() {}

  /** A limit as stored: its configuration and the ledger figures that outlive a restart. */
  public record StoredLimit(Limit limit, long pool, long rateCeiling, long burstCeiling,
      long emergencyReported, long concurrency, long slotCeiling) {
    /** A limit without a concurrency cap. */
    public StoredLimit(Limit limit, long pool, long rateCeiling, long burstCeiling,
        long emergencyReported) {
      this(limit, pool, rateCeiling, burstCeiling, emergencyReported, 0, 0);
    }
  }

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
        ledger.burstCeiling(), ledger.emergencyReported(), ledger.concurrency(),
        ledger.slotCeiling()));
  }

  /** The inverse of {@link #readLimit}. */
  public static byte[] limitValue(StoredLimit stored) {
    boolean slots = stored.concurrency() != 0 || stored.slotCeiling() != 0;
    ByteWriter out = new ByteWriter(144).u8(slots ? SLOT_LIMIT_FORMAT_VERSION : LIMIT_FORMAT_VERSION);
    Limit.SHAPE.write(out, stored.limit());
    out.i64(stored.pool()).i64(stored.rateCeiling()).i64(stored.burstCeiling())
        .i64(stored.emergencyReported());
    if (slots) {
      out.i64(stored.concurrency()).i64(stored.slotCeiling());
    }
    return out.toByteArray();
  }

  public static StoredLimit readLimit(byte[] value) {
    ByteReader in = reader(value, "limit");
    int format = in.u8("formatVersion");
    if (format != LIMIT_FORMAT_VERSION && format != SLOT_LIMIT_FORMAT_VERSION) {
      throw in.fail("unknown limit format version " + format + ", expected "
          + LIMIT_FORMAT_VERSION + " or " + SLOT_LIMIT_FORMAT_VERSION);
    }
    Limit limit = Limit.SHAPE.read(in);
    long pool = in.i64("pool");
    long rateCeiling = in.i64("rateCeiling");
    long burstCeiling = in.i64("burstCeiling");
    long emergencyReported = in.i64("emergencyReported");
    long concurrency = 0;
    long slotCeiling = 0;
    if (format == SLOT_LIMIT_FORMAT_VERSION) {
      concurrency = in.i64("concurrency");
      slotCeiling = in.i64("slotCeiling");
      if (concurrency == 0 && slotCeiling == 0) {
        throw in.fail("limit format 3 without slots (written as format 2)");
      }
    }
    StoredLimit stored = new StoredLimit(limit, pool, rateCeiling, burstCeiling,
        emergencyReported, concurrency, slotCeiling);
    in.end();
    return stored;
  }

  public static byte[] leaseKey(long leaseId) {
    return new ByteWriter(8).i64(flip(leaseId)).toByteArray();
  }

  public static byte[] leaseValue(Lease l) {
    boolean slots = l.slotShare() != 0 || l.pendingSlots() != 0 || l.demandSlots() != 0;
    ByteWriter out = new ByteWriter(168)
        .u8(slots ? SLOT_LEASE_FORMAT_VERSION : LEASE_FORMAT_VERSION).str(l.tenant())
        .str(l.resource())
        .str(l.holder()).i64(l.epoch()).i64(l.version()).i64(l.rateShare()).i64(l.burstShare())
        .i64(l.grantedAtMillis()).i64(l.expiresAtMillis()).i64(l.countedUntilMillis())
        .i64(l.pendingRate()).i64(l.pendingBurst()).i64(l.pendingUntilMillis())
        .i64(l.demandRatePerSecond()).i64(l.demandBurst());
    if (slots) {
      out.i64(l.slotShare()).i64(l.pendingSlots()).i64(l.demandSlots());
    }
    return out.toByteArray();
  }

  public static Lease readLease(byte[] key, byte[] value) {
    ByteReader k = reader(key, "lease key");
    long leaseId = flip(k.i64("leaseId"));
    k.end();
    ByteReader in = reader(value, "lease " + leaseId);
    int format = in.u8("formatVersion");
    if (format != LEASE_FORMAT_VERSION && format != OLD_LEASE_FORMAT_VERSION
        && format != SLOT_LEASE_FORMAT_VERSION) {
      throw in.fail("unknown lease format version " + format + ", expected "
          + OLD_LEASE_FORMAT_VERSION + ", " + LEASE_FORMAT_VERSION + " or "
          + SLOT_LEASE_FORMAT_VERSION);
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
    boolean demand = format != OLD_LEASE_FORMAT_VERSION;
    long demandRate = demand ? in.i64("demandRate") : 0;
    long demandBurst = demand ? in.i64("demandBurst") : 0;
    long slotShare = 0;
    long pendingSlots = 0;
    long demandSlots = 0;
    if (format == SLOT_LEASE_FORMAT_VERSION) {
      slotShare = in.i64("slotShare");
      pendingSlots = in.i64("pendingSlots");
      demandSlots = in.i64("demandSlots");
      if (slotShare == 0 && pendingSlots == 0 && demandSlots == 0) {
        throw in.fail("lease format 4 without slots (written as format 3)");
      }
    }
    in.end();
    return new Lease(leaseId, tenant, resource, holder, epoch, version, rateShare,
        burstShare, grantedAt, expiresAt, countedUntil, pendingRate, pendingBurst, pendingUntil,
        demandRate, demandBurst, slotShare, pendingSlots, demandSlots);
  }
}
