package dev.ration.statemachine.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.BatchCodec;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.LeaseCommand.AcquireLease;
import dev.ration.statemachine.command.LeaseCommand.RenewLease;
import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.statemachine.command.PlacementCommand.SlotStep;
import dev.ration.statemachine.command.PlacementCommand.Step;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.SlottedIds;
import dev.ration.statemachine.lease.LeaseLedger;
import dev.ration.statemachine.lease.MemoryLedgerStore;
import dev.ration.statemachine.placement.SlotState.Phase;
import dev.ration.statemachine.quota.QuotaOptions;
import dev.ration.statemachine.replica.Ledger;
import dev.ration.statemachine.replica.Replica;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.store.RocksCoordinatorState;
import dev.ration.testkit.Property;
import dev.ration.testkit.Rng;
import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.placement.Slots;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A data group's replica under random placement steps (fitting and not), acquisitions under new
 * and reused request keys and renewals by id, over four tenants in four slots, against a model
 * of each slot's phase kept apart from the replica's table. After every step: a client command
 * for a slot the model says is not active was refused as misrouted (moving while frozen or
 * installed, else the wrong group), changed no lease and recorded nothing under its key (its
 * retry once the slot is served again is decided afresh); one for an active slot was applied, a
 * reused key answered with its first answer; every ledger's invariants hold.
 */
class SlotAdmissionPropertyTest {
  private static final StateOptions OPTIONS = new StateOptions(600_000, 64, 10_000, 8, QuotaOptions.defaults());
  private static final String[] TENANTS = tenantsInDistinctSlots(4);

  /** The model of one slot in this group: its phase and the epoch of its last step. */
  private static final class SlotModel {
    Phase phase = Phase.ACTIVE;
    long epoch = 1;
  }

  private static final class World {
    final Rng rng;
    final MemoryLedgerStore store = new MemoryLedgerStore();
    final Replica replica = new Replica(OPTIONS, store, store, RocksCoordinatorState.ledgers(OPTIONS));
    final Map<Integer, SlotModel> slots = new HashMap<>();
    /** Every key's recorded answer (a refusal as misrouted records none). */
    final Map<Long, Result> answered = new HashMap<>();
    /** Keys sent and refused as misrouted, with the tenant they were for. */
    final Map<Long, String> refusedKeys = new HashMap<>();
    final Map<String, List<Long>> leases = new HashMap<>();
    long index;
    long now = 1_000;
    long nextKey = 1;

    World(Rng rng) {
      this.rng = rng;
      apply(RequestKey.NONE, new SlottedIds());
      for (String t : TENANTS) {
        slots.put(Slots.of(t), new SlotModel());
        leases.put(t, new ArrayList<>());
        apply(RequestKey.NONE, new SetLimit(new Limit(t, "api", 1_000_000, 1_000_000, Mode.HARD,
            60_000, 0, 0, Policy.FREE_CAPACITY, 0)));
      }
    }

    Result apply(RequestKey key, Command command) {
      now += rng.between(1, 20);
      Batch batch = BatchCodec.decode(BatchCodec.encode(Batch.of(now, List.of(new Proposal(key, command)))));
      Result r = replica.apply(1, index++, batch).get(0);
      store.commit(replica.takeChanges());
      for (Ledger l : replica.ledgers()) {
        l.verify();
      }
      return r;
    }

    int leaseCount(String tenant) {
      return replica.ledger(LeaseLedger.class).limit(new dev.ration.statemachine.lease.LimitKey(tenant, "api"))
          .map(l -> l.leaseCount()).orElse(0);
    }

    /** A placement step on a random slot: one that fits its phase most of the time. */
    void step() {
      String tenant = TENANTS[rng.between(0, TENANTS.length - 1)];
      int slot = Slots.of(tenant);
      SlotModel m = slots.get(slot);
      boolean fit = !rng.oneIn(5);
      long next = m.epoch + 1;
      SlotStep step;
      Phase after;
      switch (m.phase) {
        case ACTIVE -> {
          step = new SlotStep(Step.FREEZE, slot, fit ? next : m.epoch, -1);
          after = Phase.FROZEN;
        }
        case FROZEN -> {
          boolean release = rng.bool();
          step = release
              ? new SlotStep(Step.RELEASE, slot, fit ? m.epoch : m.epoch + 7, 3)
              : new SlotStep(Step.UNFREEZE, slot, fit ? m.epoch : m.epoch - 1, -1);
          after = release ? Phase.ABSENT : Phase.ACTIVE;
        }
        case ABSENT -> {
          step = new SlotStep(Step.INSTALL, slot, fit ? next : m.epoch, -1);
          after = Phase.INACTIVE;
        }
        default -> {
          boolean activate = rng.bool();
          step = activate
              ? new SlotStep(Step.ACTIVATE, slot, fit ? m.epoch : m.epoch + 3, -1)
              : new SlotStep(Step.DROP, slot, fit ? m.epoch : m.epoch + 3, 3);
          after = activate ? Phase.ACTIVE : Phase.ABSENT;
        }
      }
      Result r = apply(RequestKey.NONE, step);
      if (fit) {
        assertInstanceOf(Result.SlotStepped.class, r, step + " fits " + m.phase + " at " + m.epoch);
        m.phase = after;
        m.epoch = step.epoch();
      } else {
        assertInstanceOf(Result.Rejected.class, r, step + " does not fit " + m.phase + " at " + m.epoch);
      }
      assertEquals(m.phase, replica.slots().state(slot).phase(), "the table follows the log");
    }

    /** A client command for a random tenant: an acquire under a new or a reused key, or a renewal. */
    void client() {
      String tenant = TENANTS[rng.between(0, TENANTS.length - 1)];
      long key;
      Command command;
      if (!refusedKeys.isEmpty() && rng.oneIn(3)) {
        key = new ArrayList<>(refusedKeys.keySet()).get(rng.between(0, refusedKeys.size() - 1));
        tenant = refusedKeys.get(key);
        command = new AcquireLease(tenant, "api", "h", 1, 0);
      } else if (!answered.isEmpty() && rng.oneIn(4)) {
        key = new ArrayList<>(answered.keySet()).get(rng.between(0, answered.size() - 1));
        command = null; // a resend of exactly what that key carried, below
      } else if (!leases.get(tenant).isEmpty() && rng.bool()) {
        key = nextKey++;
        List<Long> held = leases.get(tenant);
        command = new RenewLease(held.get(rng.between(0, held.size() - 1)), 0, 1, 0, 0, 0, 0);
      } else {
        key = nextKey++;
        command = new AcquireLease(tenant, "api", "h", 1, 0);
      }
      if (command == null) {
        Sent s = sent.get(key);
        tenant = s.tenant;
        command = s.command;
      }
      sent.put(key, new Sent(tenant, command));
      SlotModel m = slots.get(Slots.of(tenant));
      int before = leaseCount(tenant);
      Result r = apply(new RequestKey(5, 6, key), command);
      if (m.phase != Phase.ACTIVE) {
        Result.Misrouted mis = assertInstanceOf(Result.Misrouted.class, r, command + " while " + m.phase);
        assertEquals(m.phase == Phase.FROZEN || m.phase == Phase.INACTIVE, mis.moving());
        assertEquals(before, leaseCount(tenant), "a misrouted command changes nothing");
        if (!answered.containsKey(key)) {
          refusedKeys.put(key, tenant);
        }
        return;
      }
      assertFalse(r instanceof Result.Misrouted, command + " in an active slot: " + r);
      Result first = answered.putIfAbsent(key, r);
      if (first != null) {
        assertEquals(first, r, "a reused key answers its first answer");
      } else if (refusedKeys.remove(key) != null) {
        assertInstanceOf(Result.LeaseGranted.class, r,
            "a key refused as misrouted recorded nothing: its acquire is decided afresh");
      }
      if (r instanceof Result.LeaseGranted g) {
        assertEquals(Slots.of(tenant), dev.ration.wire.placement.SlotIds.slotOf(g.lease().leaseId()));
        leases.get(tenant).add(g.lease().leaseId());
      }
    }

    private record Sent(String tenant, Command command) {}

    private final Map<Long, Sent> sent = new HashMap<>();
  }

  @Test
  void misroutedCommandsChangeAndRecordNothingAndTheTableFollowsTheLog() {
    Property.check(200, rng -> {
      World w = new World(rng);
      int steps = rng.between(20, 200);
      for (int i = 0; i < steps; i++) {
        if (rng.oneIn(3)) {
          w.step();
        } else {
          w.client();
        }
      }
      assertTrue(w.index > TENANTS.length);
    });
  }

  private static String[] tenantsInDistinctSlots(int n) {
    List<String> out = new ArrayList<>();
    java.util.Set<Integer> used = new java.util.HashSet<>();
    for (int i = 0; out.size() < n; i++) {
      String t = "tenant-" + i;
      if (used.add(Slots.of(t))) {
        out.add(t);
      }
    }
    return out.toArray(new String[0]);
  }
}
