package dev.ration.statemachine.slotledger;

import dev.ration.statemachine.InvariantViolation;
import dev.ration.statemachine.StoreException;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.PlacementCommand;
import dev.ration.statemachine.command.PlacementCommand.SlotStep;
import dev.ration.statemachine.placement.GroupSlots;
import dev.ration.statemachine.placement.SlotState;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.replica.ApplyContext;
import dev.ration.statemachine.replica.ExpiryKey;
import dev.ration.statemachine.replica.Ledger;
import dev.ration.statemachine.result.Result;
import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;
import dev.ration.wire.Outcome;
import dev.ration.wire.placement.Slots;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The group's slot table as replicated state: applies {@link PlacementCommand}s to its
 * {@link GroupSlots} (the same object the replica admits client commands by) and keeps every
 * slot a step changed in the {@link #FAMILY} column family, one record per slot, so a restart or a snapshot install resumes a move exactly where the log
 * left it.
 *
 * <p>Stored record, key {@code [slot]}: u8 format 1, u8 phase code, i64 epoch, i32 owner hint.
 *
 * <p>Thread: the applying thread.
 */
public final class PlacementLedger implements Ledger {
  public static final String FAMILY = "placement";
  private static final int FORMAT = 1;

  private final ApplyContext context;
  private final GroupSlots slots;
  /** Each slot's state before any step (what a slot without a record is in). */
  private final SlotState[] initial = new SlotState[Slots.COUNT];

  /**
   * @param slots the group's table as it starts (a group created with every slot, or empty);
   *     stored steps are applied over it at {@link #load}
   */
  public PlacementLedger(ApplyContext context, GroupSlots slots) {
    this.context = context;
    this.slots = slots;
    for (int s = 0; s < Slots.COUNT; s++) {
      initial[s] = slots.state(s);
    }
  }

  @Override
  public GroupSlots slotTable() {
    return slots;
  }

  @Override
  public String name() {
    return "placement";
  }

  @Override
  public Class<? extends Command> commands() {
    return PlacementCommand.class;
  }

  @Override
  public Result apply(Command command) {
    SlotStep c = (SlotStep) command;
    if (c.slot() < 0 || c.slot() >= Slots.COUNT) {
      return new Result.Rejected(Outcome.INVALID_ARGUMENT,
          "slot " + c.slot() + " is not in [0, " + Slots.COUNT + ")", 0, 0);
    }
    Optional<String> refused = switch (c.step()) {
      case FREEZE -> slots.freeze(c.slot(), c.epoch());
      case UNFREEZE -> slots.unfreeze(c.slot(), c.epoch());
      case RELEASE -> slots.release(c.slot(), c.epoch(), c.other());
      case INSTALL -> slots.install(c.slot(), c.epoch());
      case ACTIVATE -> slots.activate(c.slot(), c.epoch());
      case DROP -> slots.drop(c.slot(), c.epoch(), c.other());
    };
    if (refused.isPresent()) {
      // The step does not fit the slot's phase or epoch (late, or of another attempt).
      return new Result.Rejected(Outcome.VERSION_MISMATCH, refused.get(), 0, slots.state(c.slot()).epoch());
    }
    // Every step leaves the slot at an epoch above its initial one, so a stepped slot always
    // differs from its initial state and keeps a record.
    SlotState now = slots.state(c.slot());
    context.changes().putRecord(FAMILY, key(c.slot()), encode(now));
    return new Result.SlotStepped(c.slot(), now.phase().code(), now.epoch(), now.ownerHint());
  }

  @Override
  public Optional<String> tenantOfId(long id, boolean orSettled) {
    return Optional.empty(); // placement commands name no object by id
  }

  @Override
  public boolean ownsExpiryKind(int kind) {
    return false;
  }

  @Override
  public boolean expire(ExpiryKey due) {
    throw new IllegalStateException("the placement ledger owns no expiry kind: " + due);
  }

  @Override
  public Optional<QueryResult> query(Query query, long readNowMillis) {
    if (!(query instanceof Query.SlotTable)) {
      return Optional.empty();
    }
    int[] byPhase = new int[SlotState.Phase.values().length];
    for (int s = 0; s < Slots.COUNT; s++) {
      byPhase[slots.state(s).phase().ordinal()]++;
    }
    return Optional.of(new QueryResult.SlotTableAnswer(slots.self(),
        byPhase[SlotState.Phase.ACTIVE.ordinal()], byPhase[SlotState.Phase.FROZEN.ordinal()],
        byPhase[SlotState.Phase.INACTIVE.ordinal()], byPhase[SlotState.Phase.ABSENT.ordinal()]));
  }

  @Override
  public void load() {
    for (int s = 0; s < Slots.COUNT; s++) {
      slots.restore(s, initial[s]);
    }
    context.store().scan(FAMILY, new byte[0], (k, v) -> {
      if (k.length != 1) {
        throw new StoreException("placement record key of " + k.length + " bytes, expected 1");
      }
      slots.restore(k[0] & 0xff, decode(v));
      return true;
    });
  }

  /** Every stored record matches the table and every slot without one is in its initial state. */
  @Override
  public void verify() {
    slots.verify();
    SlotState[] stored = Arrays.copyOf(initial, initial.length);
    context.store().scan(FAMILY, new byte[0], (k, v) -> {
      stored[k[0] & 0xff] = decode(v);
      return true;
    });
    for (int s = 0; s < Slots.COUNT; s++) {
      if (!stored[s].equals(slots.state(s))) {
        throw new InvariantViolation("P2 slot " + s + " is " + slots.state(s) + " in memory but "
            + stored[s] + " in the store");
      }
    }
  }

  /** The table in memory is checked at every step (P2); comparing it with the store is the
   *  full check's. */
  @Override
  public void verifyAtSnapshot() {
    slots.verify();
  }

  @Override
  public void verifyStoredExpiries(Consumer<Consumer<ExpiryKey>> walk) {
    // No expiry records of its own.
  }

  private static byte[] key(int slot) {
    return new byte[] {(byte) slot};
  }

  private static byte[] encode(SlotState s) {
    return new ByteWriter(16).u8(FORMAT).u8(s.phase().code()).i64(s.epoch()).i32(s.ownerHint())
        .toByteArray();
  }

  private static SlotState decode(byte[] v) {
    ByteReader in = new ByteReader(v, "placement record", StoreException::new);
    int format = in.u8("format");
    if (format != FORMAT) {
      throw in.fail("unknown placement record format " + format + ", expected " + FORMAT);
    }
    SlotState.Phase phase;
    try {
      phase = SlotState.Phase.fromCode(in.u8("phase"));
    } catch (IllegalArgumentException e) {
      throw new StoreException(e.getMessage());
    }
    SlotState s = new SlotState(phase, in.i64("epoch"), in.i32("ownerHint"));
    in.end();
    return s;
  }
}
