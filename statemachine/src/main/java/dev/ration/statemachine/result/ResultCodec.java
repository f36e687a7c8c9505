package dev.ration.statemachine.result;

import dev.ration.wire.Outcome;

import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import dev.ration.wire.CapacityPolicy;
import dev.ration.wire.ttl.NamespaceView;
import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;

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
 *   --- ttl (issue 4)
 *   EntryWritten (20) str namespace, str key, i64 version, i64 expiresAtMillis
 *   EntryDeleted (21) str namespace, str key, i64 version, u8 existed
 *   NamespaceSet (22) namespace
 *   namespace = str name, i64 maxEntries, i64 maxBytes, u8 policy, i64 entries, i64 bytes,
 *               i64 evictedExpired, i64 evictedCapacity
 *   --- end ttl
 * limit = str tenant, str resource, i64 ratePerSecond, i64 burst, u8 mode,
 *         i64 leaseDurationMillis, i64 graceMillis, i64 emergency, u8 policy, i64 version
 * lease = i64 leaseId, str tenant, str resource, str holder, i64 epoch, i64 version,
 *         i64 rateShare, i64 burstShare, i64 countedRate, i64 countedBurst, i64 grantedAtMillis,
 *         i64 expiresAtMillis, i64 countedUntilMillis, u8 mode, i64 emergency,
 *         i64 leaseDurationMillis
 * </pre>
 */
public final class ResultCodec {
  public static final int FORMAT_VERSION = 1;

  private ResultCodec() {}

  public static byte[] encode(Result result) {
    ByteWriter out = new ByteWriter(128);
    out.u8(FORMAT_VERSION).u8(result.code());
    if (result instanceof Result.LimitSet r) {
      writeLimit(out, r.limit());
    } else if (result instanceof Result.LeaseGranted r) {
      writeLease(out, r.lease());
      out.i64(r.startBalance());
    } else if (result instanceof Result.LeaseRenewed r) {
      writeLease(out, r.lease());
    } else if (result instanceof Result.LeaseReturned r) {
      out.i64(r.leaseId()).i64(r.credited()).bool(r.alreadyGone());
    } else if (result instanceof Result.EpochStarted r) {
      out.i64(r.epoch()).i64(r.epochStartMillis());
    } else if (result instanceof Result.Ticked r) {
      out.i32(r.freed());
    } else if (result instanceof Result.Rejected r) {
      out.u8(r.outcome().code()).str(r.message()).i64(r.retryAfterMillis()).i64(r.currentVersion());
      // --- ttl (issue 4)
    } else if (result instanceof Result.EntryWritten r) {
      out.str(r.namespace()).str(r.key()).i64(r.version()).i64(r.expiresAtMillis());
    } else if (result instanceof Result.EntryDeleted r) {
      out.str(r.namespace()).str(r.key()).i64(r.version()).bool(r.existed());
    } else if (result instanceof Result.NamespaceSet r) {
      writeNamespace(out, r.namespace());
      // --- end ttl
      // --- quota (issue 6): codes 40-59, fields in QuotaResultCodec
    } else if (result instanceof Result.Quota r) {
      QuotaResultCodec.encode(out, r.result());
      // --- end quota
    } else {
      throw new IllegalStateException("unhandled result " + result);
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
    Result result;
    switch (code) {
      case 1:
        result = new Result.LimitSet(readLimit(in));
        break;
      case 2:
        result = new Result.LeaseGranted(readLease(in), in.i64("startBalance"));
        break;
      case 3:
        result = new Result.LeaseRenewed(readLease(in));
        break;
      case 4:
        result = new Result.LeaseReturned(in.i64("leaseId"), in.i64("credited"), in.bool("alreadyGone"));
        break;
      case 5:
        result = new Result.EpochStarted(in.i64("epoch"), in.i64("epochStartMillis"));
        break;
      case 6:
        result = new Result.Ticked(in.i32("freed"));
        break;
      case 7: {
        int outcomeCode = in.u8("outcome");
        Outcome outcome = null;
        for (Outcome o : Outcome.values()) {
          if (o.code() == outcomeCode) {
            outcome = o;
          }
        }
        if (outcome == null || outcome == Outcome.SUCCESS) {
          throw in.fail("unknown rejection outcome code " + outcomeCode);
        }
        result = new Result.Rejected(outcome, in.str("message"), in.i64("retryAfterMillis"),
            in.i64("currentVersion"));
        break;
      }
      // --- ttl (issue 4)
      case 20:
        result = new Result.EntryWritten(in.str("namespace"), in.str("key"), in.i64("version"),
            in.i64("expiresAtMillis"));
        break;
      case 21:
        result = new Result.EntryDeleted(in.str("namespace"), in.str("key"), in.i64("version"),
            in.bool("existed"));
        break;
      case 22:
        result = new Result.NamespaceSet(readNamespace(in));
        break;
      // --- end ttl
      default:
        // --- quota (issue 6)
        if (QuotaResultCodec.isQuotaCode(code)) {
          result = new Result.Quota(QuotaResultCodec.decode(code, in));
          break;
        }
        // --- end quota
        throw in.fail("unknown result code " + code);
    }
    in.end();
    return result;
  }

  public static void writeLimit(ByteWriter out, Limit limit) {
    out.str(limit.tenant()).str(limit.resource()).i64(limit.ratePerSecond()).i64(limit.burst())
        .u8(limit.mode().code()).i64(limit.leaseDurationMillis()).i64(limit.graceMillis())
        .i64(limit.emergency()).u8(limit.policy().code()).i64(limit.version());
  }

  public static Limit readLimit(ByteReader in) {
    String tenant = in.str("tenant");
    String resource = in.str("resource");
    long rate = in.i64("ratePerSecond");
    long burst = in.i64("burst");
    Mode mode = mode(in);
    long duration = in.i64("leaseDurationMillis");
    long grace = in.i64("graceMillis");
    long emergency = in.i64("emergency");
    Policy policy = policy(in);
    long version = in.i64("version");
    return new Limit(tenant, resource, rate, burst, mode, duration, grace, emergency, policy, version);
  }

  public static void writeLease(ByteWriter out, LeaseView l) {
    out.i64(l.leaseId()).str(l.tenant()).str(l.resource()).str(l.holder()).i64(l.epoch())
        .i64(l.version()).i64(l.rateShare()).i64(l.burstShare()).i64(l.countedRate())
        .i64(l.countedBurst()).i64(l.grantedAtMillis()).i64(l.expiresAtMillis())
        .i64(l.countedUntilMillis()).u8(l.mode().code()).i64(l.emergency())
        .i64(l.leaseDurationMillis());
  }

  public static LeaseView readLease(ByteReader in) {
    long id = in.i64("leaseId");
    String tenant = in.str("tenant");
    String resource = in.str("resource");
    String holder = in.str("holder");
    long epoch = in.i64("epoch");
    long version = in.i64("version");
    long rateShare = in.i64("rateShare");
    long burstShare = in.i64("burstShare");
    long countedRate = in.i64("countedRate");
    long countedBurst = in.i64("countedBurst");
    long grantedAt = in.i64("grantedAtMillis");
    long expiresAt = in.i64("expiresAtMillis");
    long countedUntil = in.i64("countedUntilMillis");
    Mode mode = mode(in);
    long emergency = in.i64("emergency");
    long duration = in.i64("leaseDurationMillis");
    return new LeaseView(id, tenant, resource, holder, epoch, version, rateShare, burstShare,
        countedRate, countedBurst, grantedAt, expiresAt, countedUntil, mode, emergency, duration);
  }

  // --- ttl (issue 4)
  public static void writeNamespace(ByteWriter out, NamespaceView n) {
    out.str(n.name()).i64(n.maxEntries()).i64(n.maxBytes()).u8(n.policy().code())
        .i64(n.entries()).i64(n.bytes()).i64(n.evictedExpired()).i64(n.evictedCapacity());
  }

  public static NamespaceView readNamespace(ByteReader in) {
    String name = in.str("name");
    long maxEntries = in.i64("maxEntries");
    long maxBytes = in.i64("maxBytes");
    int policyCode = in.u8("policy");
    CapacityPolicy policy = null;
    for (CapacityPolicy p : CapacityPolicy.values()) {
      if (p.code() == policyCode) {
        policy = p;
      }
    }
    if (policy == null) {
      throw in.fail("unknown capacity policy code " + policyCode);
    }
    return new NamespaceView(name, maxEntries, maxBytes, policy, in.i64("entries"),
        in.i64("bytes"), in.i64("evictedExpired"), in.i64("evictedCapacity"));
  }
  // --- end ttl

  private static Mode mode(ByteReader in) {
    int code = in.u8("mode");
    for (Mode m : Mode.values()) {
      if (m.code() == code) {
        return m;
      }
    }
    throw in.fail("unknown mode code " + code);
  }

  private static Policy policy(ByteReader in) {
    int code = in.u8("policy");
    for (Policy p : Policy.values()) {
      if (p.code() == code) {
        return p;
      }
    }
    throw in.fail("unknown policy code " + code);
  }
}
