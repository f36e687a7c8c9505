package dev.ration.statemachine.command;

import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.statemachine.command.LeaseCommand.AcquireLease;
import dev.ration.statemachine.command.LeaseCommand.RenewLease;
import dev.ration.statemachine.command.LeaseCommand.ReturnLease;
import dev.ration.statemachine.command.LeaseCommand.NewEpoch;
import dev.ration.statemachine.command.TtlCommand.PutEntry;
import dev.ration.statemachine.command.TtlCommand.CompareAndSetEntry;
import dev.ration.statemachine.command.TtlCommand.RefreshEntry;
import dev.ration.statemachine.command.TtlCommand.DeleteEntry;
import dev.ration.statemachine.command.TtlCommand.SetNamespace;
import dev.ration.statemachine.command.QuotaCommand.SetQuota;
import dev.ration.statemachine.command.QuotaCommand.Reserve;
import dev.ration.statemachine.command.QuotaCommand.CompleteReservation;
import dev.ration.statemachine.command.QuotaCommand.CancelReservation;
import dev.ration.statemachine.command.QuotaCommand.IngestUsage;
import dev.ration.statemachine.command.QuotaCommand.AckUsage;
import dev.ration.statemachine.command.QuotaCommand.Reconcile;
import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;
import dev.ration.wire.shape.ShapeTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The log-entry format of a {@link Batch} (big-endian, pinned by a golden-bytes test):
 *
 * <pre>
 * u8 formatVersion (1) | i64 timeMillis | u32 count | count × proposal
 * proposal = i64 clientHigh | i64 clientLow | i64 sequence | u8 command code | fields
 * (each command's fields are its record's SHAPE, in the order listed here)
 *   SetLimit (1)     str tenant, str resource, i64 ratePerSecond, i64 burst, u8 mode,
 *                    i64 leaseDurationMillis, i64 graceMillis, i64 emergency, u8 policy,
 *                    i64 expectedVersion
 *   AcquireLease (2) str tenant, str resource, str holder, i64 demandRatePerSecond, i64 demandBurst
 *   RenewLease (3)   i64 leaseId, i64 presentedVersion, i64 demandRatePerSecond, i64 demandBurst,
 *                    i64 admittedPerSecond, i64 rejectedPerSecond, i64 emergencyUsed
 *   ReturnLease (4)  i64 leaseId, i64 presentedVersion, i64 unusedBalance
 *   NewEpoch (5)     str leaderId
 *   Tick (6)         i32 maxItems
 *   RenewLeases (7)  u16 n × (RenewLease's fields)
 *   SetLimitConcurrency (8) SetLimit's fields, i64 concurrency
 *   AcquireSlots (9)        str tenant, str resource, str holder, i64 demandSlots
 *   RenewSlots (10)         u16 n × (i64 leaseId, i64 presentedVersion, i64 running,
 *                           i64 queued, i64 release)
 *   ReturnLease, fenced (11) ReturnLease's fields (frees the lease only at its current version)
 *   SlottedIds (12)         no fields
 *   PutEntry (20)           str namespace, str key, bytes value, i64 ttlMillis
 *   CompareAndSetEntry (21) str namespace, str key, i64 expectedVersion, bytes value, i64 ttlMillis
 *   RefreshEntry (22)       str namespace, str key, i64 ttlMillis, i64 expectedVersion
 *   DeleteEntry (23)        str namespace, str key, i64 expectedVersion
 *   SetNamespace (24)       str namespace, i64 maxEntries, i64 maxBytes, u8 policy
 *   UpdateEntry (25)        str namespace, str key, bytes value, i64 expectedVersion
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
 *   Reserve, keyed (47)      Reserve's fields, then str idempotencyKey (not empty)
 *   IngestUsage, per tenant (48) IngestUsage's fields (event ids kept per tenant)
 *   GrantBudget (49)         str holder, str scope, str resource, i64 amount, i64 leaseMillis
 *   ReportBudget (50)        i64 budgetId, i64 spent, i64 sequence, i64 wantAmount,
 *                            i64 leaseMillis
 *   ReturnBudget (51)        i64 budgetId, i64 spent, i64 sequence
 *   ReportBudgets (52)       u16 n × (ReportBudget's fields)
 *   ReserveBatch (53)        u16 n × (Reserve's fields, then str idempotencyKey, "" = none)
 *   CreateToken (60)  i64 tokenId, str identity, bytes salt, bytes hash, i64 ttlMillis, str actor
 *   RevokeToken (61)  i64 tokenId, str actor
 *   GrantRole (62)    str identity, str role, str tenant, str actor
 *   RevokeRole (63)   str identity, str role, str tenant, str actor
 *   Authorized (64)   str actor, str tenants, bytes inner (a command code and its fields)
 *   Authorized, closed (65) Authorized's fields (fails closed on the inner command's touches)
 *   SlotStep (80)     u8 step, i32 slot, i64 epoch, i32 other
 * bytes = i32 length | the bytes
 * str = u16 byte length | UTF-8 bytes (strict: malformed input is refused both ways)
 * </pre>
 *
 * Decoding checks every declared length against the bytes left before allocating and throws
 * {@link BatchFormatException} naming the field. Values are not range-checked here: apply re-validates them and
 * answers INVALID_ARGUMENT, which is a replicated result, not a decode failure.
 */
public final class BatchCodec {
  /** u8 formatVersion + i64 timeMillis + u32 count: the bytes of an entry before its proposals. */
  public static final int HEADER_BYTES = 1 + 8 + 4;

  /** key (24) + command code (1): the least a proposal can occupy; bounds the declared count. */
  static final int MIN_PROPOSAL_BYTES = 25;

  /** Every command's shape by its code, from the sealed hierarchy of {@link Command}. */
  private static final ShapeTable<Command> COMMANDS =
      ShapeTable.ofSealed(Command.class, Set.of())
          .with(Reserve.KEYED_CODE, Reserve.KEYED_SHAPE)
          .with(ReturnLease.FENCED_CODE, ReturnLease.FENCED_SHAPE)
          .with(IngestUsage.TENANT_CODE, IngestUsage.TENANT_SHAPE)
          .with(SecurityCommand.Authorized.CLOSED_CODE, SecurityCommand.Authorized.CLOSED_SHAPE);

  private BatchCodec() {}

  public static byte[] encode(Batch batch) {
    if (batch.formatVersion() != Batch.FORMAT_VERSION) {
      throw new IllegalArgumentException(
          "cannot encode batch format " + batch.formatVersion() + ", only " + Batch.FORMAT_VERSION);
    }
    ByteWriter out = new ByteWriter(16 + batch.proposals().size() * 64);
    out.u8(batch.formatVersion()).i64(batch.timeMillis()).i32(batch.proposals().size());
    for (Proposal proposal : batch.proposals()) {
      writeProposal(out, proposal.key(), proposal.command());
    }
    return out.toByteArray();
  }

  /**
   * One proposal as a batch carries it (key | command code | fields), so that a proposer can
   * encode each command once, when it is submitted, and join the bytes into entries with
   * {@link #encodeEncoded}: the same bytes {@link #encode} writes.
   */
  public static byte[] encodeProposal(RequestKey key, Command command) {
    ByteWriter out = new ByteWriter(128);
    writeProposal(out, key, command);
    return out.toByteArray();
  }

  /** A batch of proposals already encoded by {@link #encodeProposal}, in their order. */
  public static byte[] encodeEncoded(long timeMillis, List<byte[]> proposals) {
    int size = HEADER_BYTES;
    for (byte[] proposal : proposals) {
      size += proposal.length;
    }
    ByteWriter out = new ByteWriter(size);
    out.u8(Batch.FORMAT_VERSION).i64(timeMillis).i32(proposals.size());
    for (byte[] proposal : proposals) {
      out.raw(proposal);
    }
    return out.toByteArray();
  }

  private static void writeProposal(ByteWriter out, RequestKey key, Command command) {
    out.i64(key.clientHigh()).i64(key.clientLow()).i64(key.sequence());
    int code = command.code();
    out.u8(code);
    COMMANDS.write(out, code, command);
  }

  /** One command alone: u8 code | fields (the bytes a proposal carries after its key). */
  public static byte[] encodeCommand(Command command) {
    ByteWriter out = new ByteWriter(64);
    out.u8(command.code());
    COMMANDS.write(out, command.code(), command);
    return out.toByteArray();
  }

  /** Reads {@link #encodeCommand}'s bytes; corrupt bytes throw {@link BatchFormatException}. */
  public static Command decodeCommand(byte[] bytes) {
    ByteReader in = new ByteReader(bytes, "command", BatchFormatException::new);
    Command command = COMMANDS.read(in, in.u8("command code"), "command");
    in.end();
    return command;
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
      proposals.add(new Proposal(key, COMMANDS.read(in, in.u8("command code"), "command")));
    }
    in.end();
    return new Batch(format, timeMillis, proposals);
  }
}
