package dev.ration.statemachine.command;

import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import dev.ration.statemachine.ttl.Bytes;
import dev.ration.wire.CapacityPolicy;
import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * The log-entry format of a {@link Batch} (big-endian, pinned by a golden-bytes test):
 *
 * <pre>
 * u8 formatVersion (1) | i64 timeMillis | u32 count | count × proposal
 * proposal = i64 clientHigh | i64 clientLow | i64 sequence | u8 command code | fields
 *   SetLimit (1)     str tenant, str resource, i64 ratePerSecond, i64 burst, u8 mode,
 *                    i64 leaseDurationMillis, i64 graceMillis, i64 emergency, u8 policy,
 *                    i64 expectedVersion
 *   AcquireLease (2) str tenant, str resource, str holder, i64 demandRatePerSecond, i64 demandBurst
 *   RenewLease (3)   i64 leaseId, i64 presentedVersion, i64 demandRatePerSecond, i64 demandBurst,
 *                    i64 admittedPerSecond, i64 rejectedPerSecond, i64 emergencyUsed
 *   ReturnLease (4)  i64 leaseId, i64 presentedVersion, i64 unusedBalance
 *   NewEpoch (5)     str leaderId
 *   Tick (6)         i32 maxItems
 *   --- ttl (issue 4)
 *   PutEntry (20)           str namespace, str key, bytes value, i64 ttlMillis
 *   CompareAndSetEntry (21) str namespace, str key, i64 expectedVersion, bytes value, i64 ttlMillis
 *   RefreshEntry (22)       str namespace, str key, i64 ttlMillis, i64 expectedVersion
 *   DeleteEntry (23)        str namespace, str key, i64 expectedVersion
 *   SetNamespace (24)       str namespace, i64 maxEntries, i64 maxBytes, u8 policy
 *   bytes = i32 length | the bytes
 *   --- end ttl
 *   --- quota (issue 6): codes 40-59, documented in QuotaCommandCodec --- end quota
 * str = u16 byte length | UTF-8 bytes (strict: malformed input is refused both ways)
 * </pre>
 *
 * Decoding checks every declared length against the bytes left before allocating and throws
 * {@link BatchFormatException}. Values are not range-checked here: apply re-validates them and
 * answers INVALID_ARGUMENT, which is a replicated result, not a decode failure.
 */
public final class BatchCodec {
  /** key (24) + command code (1): the least a proposal can occupy; bounds the declared count. */
  static final int MIN_PROPOSAL_BYTES = 25;

  private BatchCodec() {}

  public static byte[] encode(Batch batch) {
    if (batch.formatVersion() != Batch.FORMAT_VERSION) {
      throw new IllegalArgumentException(
          "cannot encode batch format " + batch.formatVersion() + ", only " + Batch.FORMAT_VERSION);
    }
    ByteWriter out = new ByteWriter(16 + batch.proposals().size() * 64);
    out.u8(batch.formatVersion()).i64(batch.timeMillis()).i32(batch.proposals().size());
    for (Proposal proposal : batch.proposals()) {
      RequestKey key = proposal.key();
      out.i64(key.clientHigh()).i64(key.clientLow()).i64(key.sequence());
      Command command = proposal.command();
      out.u8(command.code());
      if (command instanceof SetLimit c) {
        out.str(c.tenant()).str(c.resource()).i64(c.ratePerSecond()).i64(c.burst())
            .u8(c.mode().code()).i64(c.leaseDurationMillis()).i64(c.graceMillis())
            .i64(c.emergency()).u8(c.policy().code()).i64(c.expectedVersion());
      } else if (command instanceof AcquireLease c) {
        out.str(c.tenant()).str(c.resource()).str(c.holder()).i64(c.demandRatePerSecond())
            .i64(c.demandBurst());
      } else if (command instanceof RenewLease c) {
        out.i64(c.leaseId()).i64(c.presentedVersion()).i64(c.demandRatePerSecond())
            .i64(c.demandBurst()).i64(c.admittedPerSecond()).i64(c.rejectedPerSecond())
            .i64(c.emergencyUsed());
      } else if (command instanceof ReturnLease c) {
        out.i64(c.leaseId()).i64(c.presentedVersion()).i64(c.unusedBalance());
      } else if (command instanceof NewEpoch c) {
        out.str(c.leaderId());
      } else if (command instanceof Tick c) {
        out.i32(c.maxItems());
        // --- ttl (issue 4)
      } else if (command instanceof PutEntry c) {
        out.str(c.namespace()).str(c.key());
        bytes(out, c.value());
        out.i64(c.ttlMillis());
      } else if (command instanceof CompareAndSetEntry c) {
        out.str(c.namespace()).str(c.key()).i64(c.expectedVersion());
        bytes(out, c.value());
        out.i64(c.ttlMillis());
      } else if (command instanceof RefreshEntry c) {
        out.str(c.namespace()).str(c.key()).i64(c.ttlMillis()).i64(c.expectedVersion());
      } else if (command instanceof DeleteEntry c) {
        out.str(c.namespace()).str(c.key()).i64(c.expectedVersion());
      } else if (command instanceof SetNamespace c) {
        out.str(c.namespace()).i64(c.maxEntries()).i64(c.maxBytes()).u8(c.policy().code());
        // --- end ttl
        // --- quota (issue 6): codes 40-59, fields in QuotaCommandCodec
      } else if (command instanceof QuotaCommand c) {
        QuotaCommandCodec.encode(out, c);
        // --- end quota
      } else {
        throw new IllegalStateException("unhandled command " + command);
      }
    }
    return out.toByteArray();
  }

  public static Batch decode(byte[] bytes) {
    ByteReader in = new ByteReader(bytes, "batch", BatchFormatException::new);
    int format = in.u8("formatVersion");
    if (format != Batch.FORMAT_VERSION) {
      throw in.fail("unknown batch format version " + format + ", expected " + Batch.FORMAT_VERSION);
    }
    long timeMillis = in.i64("timeMillis");
    long count = in.u32("count");
    if (count > in.remaining() / MIN_PROPOSAL_BYTES) {
      throw in.fail("declared " + count + " proposals, but only " + in.remaining()
          + " bytes left (at least " + MIN_PROPOSAL_BYTES + " per proposal)");
    }
    List<Proposal> proposals = new ArrayList<>((int) count);
    for (long i = 0; i < count; i++) {
      RequestKey key = new RequestKey(in.i64("clientHigh"), in.i64("clientLow"), in.i64("sequence"));
      proposals.add(new Proposal(key, decodeCommand(in)));
    }
    in.end();
    return new Batch(format, timeMillis, proposals);
  }

  private static Command decodeCommand(ByteReader in) {
    int code = in.u8("command code");
    switch (code) {
      case SetLimit.CODE: {
        String tenant = in.str("tenant");
        String resource = in.str("resource");
        long rate = in.i64("ratePerSecond");
        long burst = in.i64("burst");
        int modeCode = in.u8("mode");
        long duration = in.i64("leaseDurationMillis");
        long grace = in.i64("graceMillis");
        long emergency = in.i64("emergency");
        int policyCode = in.u8("policy");
        long expected = in.i64("expectedVersion");
        return new SetLimit(tenant, resource, rate, burst, mode(in, modeCode), duration, grace,
            emergency, policy(in, policyCode), expected);
      }
      case AcquireLease.CODE:
        return new AcquireLease(in.str("tenant"), in.str("resource"), in.str("holder"),
            in.i64("demandRatePerSecond"), in.i64("demandBurst"));
      case RenewLease.CODE:
        return new RenewLease(in.i64("leaseId"), in.i64("presentedVersion"),
            in.i64("demandRatePerSecond"), in.i64("demandBurst"), in.i64("admittedPerSecond"),
            in.i64("rejectedPerSecond"), in.i64("emergencyUsed"));
      case ReturnLease.CODE:
        return new ReturnLease(in.i64("leaseId"), in.i64("presentedVersion"), in.i64("unusedBalance"));
      case NewEpoch.CODE:
        return new NewEpoch(in.str("leaderId"));
      case Tick.CODE:
        return new Tick(in.i32("maxItems"));
      // --- ttl (issue 4)
      case PutEntry.CODE:
        return new PutEntry(in.str("namespace"), in.str("key"), bytes(in, "value"),
            in.i64("ttlMillis"));
      case CompareAndSetEntry.CODE:
        return new CompareAndSetEntry(in.str("namespace"), in.str("key"),
            in.i64("expectedVersion"), bytes(in, "value"), in.i64("ttlMillis"));
      case RefreshEntry.CODE:
        return new RefreshEntry(in.str("namespace"), in.str("key"), in.i64("ttlMillis"),
            in.i64("expectedVersion"));
      case DeleteEntry.CODE:
        return new DeleteEntry(in.str("namespace"), in.str("key"), in.i64("expectedVersion"));
      case SetNamespace.CODE: {
        String namespace = in.str("namespace");
        long maxEntries = in.i64("maxEntries");
        long maxBytes = in.i64("maxBytes");
        int policy = in.u8("policy");
        for (CapacityPolicy p : CapacityPolicy.values()) {
          if (p.code() == policy) {
            return new SetNamespace(namespace, maxEntries, maxBytes, p);
          }
        }
        throw in.fail("unknown capacity policy code " + policy);
      }
      // --- end ttl
      default:
        // --- quota (issue 6)
        if (QuotaCommandCodec.isQuotaCode(code)) {
          return QuotaCommandCodec.decode(code, in);
        }
        // --- end quota
        throw in.fail("unknown command code " + code);
    }
  }

  // --- ttl (issue 4)
  private static void bytes(ByteWriter out, Bytes value) {
    out.i32(value.length()).raw(value.unsafeArray());
  }

  /** i32 length (checked against the bytes left by raw) then the bytes. */
  private static Bytes bytes(ByteReader in, String field) {
    return new Bytes(in.raw(in.i32(field + " length"), field));
  }
  // --- end ttl

  private static Mode mode(ByteReader in, int code) {
    for (Mode m : Mode.values()) {
      if (m.code() == code) {
        return m;
      }
    }
    throw in.fail("unknown mode code " + code);
  }

  private static Policy policy(ByteReader in, int code) {
    for (Policy p : Policy.values()) {
      if (p.code() == code) {
        return p;
      }
    }
    throw in.fail("unknown policy code " + code);
  }
}
