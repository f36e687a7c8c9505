package dev.ration.statemachine.slotledger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.LeaseCommand.AcquireLease;
import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.statemachine.command.PlacementCommand.SlotStep;
import dev.ration.statemachine.command.PlacementCommand.Step;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.quota.QuotaOptions;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.store.RocksCoordinatorState;
import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.placement.Slots;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A group's slot table is replicated state: it survives a restart and a checkpoint exactly. */
class PlacementLedgerStoreTest {
  private static final StateOptions OPTIONS = new StateOptions(1_000, 4, 10_000, 8, QuotaOptions.defaults());
  private static final int SLOT = Slots.of("acme");
  private static final int OTHER = (SLOT + 1) % Slots.COUNT;

  @TempDir Path dir;
  private long index;
  private long now = 1_000;

  @Test
  void aMoveInProgressResumesAfterARestartAndFromACheckpoint() {
    byte[] before;
    RocksCoordinatorState state = RocksCoordinatorState.open(dir.resolve("node"), OPTIONS);
    try {
      apply(state, new SetLimit(new Limit("acme", "api", 100, 10, Mode.HARD, 10_000, 0, 0,
          Policy.FREE_CAPACITY, 0)));
      apply(state, new SlotStep(Step.FREEZE, SLOT, 2, -1));
      apply(state, new SlotStep(Step.RELEASE, SLOT, 2, 1));
      apply(state, new SlotStep(Step.FREEZE, OTHER, 3, -1));
      assertReleasedToGroupOne(state);
      state.verify();
      before = state.canonicalState();
      state.checkpoint(dir.resolve("checkpoint"));
    } finally {
      state.close();
    }
    state = RocksCoordinatorState.open(dir.resolve("node"), OPTIONS);
    try {
      assertArrayEquals(before, state.canonicalState(), "the stored table is the table");
      state.verify();
      assertReleasedToGroupOne(state);
    } finally {
      state.close();
    }
    state = RocksCoordinatorState.open(dir.resolve("checkpoint"), OPTIONS);
    try {
      assertReleasedToGroupOne(state);
      apply(state, new SlotStep(Step.UNFREEZE, OTHER, 3, -1));
      state.verify(); // served again at epoch 3: its record says so, as verify checks
    } finally {
      state.close();
    }
  }

  private void assertReleasedToGroupOne(RocksCoordinatorState state) {
    Result r = state.apply(1, index++, Batch.of(now += 10, List.of(new Proposal(
        new RequestKey(1, 2, index), new AcquireLease("acme", "api", "h", 1, 0))))).get(0);
    assertEquals(new Result.Misrouted(SLOT, 1, 2, false), assertInstanceOf(Result.Misrouted.class, r, r.toString()));
  }

  private void apply(RocksCoordinatorState state, Command command) {
    Result r = state.apply(1, index++, Batch.of(now += 10, List.of(new Proposal(RequestKey.NONE, command)))).get(0);
    if (r instanceof Result.Rejected) {
      throw new AssertionError(command + ": " + r);
    }
  }
}
