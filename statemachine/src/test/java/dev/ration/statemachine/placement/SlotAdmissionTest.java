package dev.ration.statemachine.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
import dev.ration.statemachine.command.SecurityCommand;
import dev.ration.statemachine.command.SlottedIds;
import dev.ration.statemachine.lease.MemoryLedgerStore;
import dev.ration.statemachine.quota.QuotaOptions;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.query.QuotaQuery;
import dev.ration.statemachine.replica.FamilyStore;
import dev.ration.statemachine.replica.IdempotencyRecord;
import dev.ration.statemachine.replica.Replica;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.store.RocksCoordinatorState;
import dev.ration.wire.Mode;
import dev.ration.wire.Outcome;
import dev.ration.wire.Policy;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.placement.SlotIds;
import dev.ration.wire.placement.Slots;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A data group's replica refuses, at apply time, every client command for a slot it does not
 * serve now, before the idempotency lookup and without recording anything under the request's
 * key: a proposal that was in flight while its slot moved never lands in the wrong group, and
 * its retry is decided afresh where the slot is served.
 */
class SlotAdmissionTest {
  private static final StateOptions OPTIONS = new StateOptions(1_000, 4, 10_000, 8, QuotaOptions.defaults());
  private static final String A = "tenant-a";
  /** A tenant in another slot than {@link #A}'s. */
  private static final String B = otherSlotThan(A);

  private GroupSlots slots;
  private MemoryLedgerStore store;
  private Replica replica;
  private long index;
  private long now = 1_000;

  @BeforeEach
  void open() {
    slots = GroupSlots.servingAll(0);
    store = new MemoryLedgerStore();
    replica = new Replica(OPTIONS, store, FamilyStore.EMPTY,
        RocksCoordinatorState.ledgers(OPTIONS, slots));
    apply(RequestKey.NONE, new SlottedIds()); // ids that carry slots, as before a cluster's first move
    for (String tenant : List.of(A, B)) {
      apply(RequestKey.NONE, new SetLimit(new Limit(tenant, "api", 1_000, 100, Mode.HARD,
          10_000, 0, 0, Policy.FREE_CAPACITY, 0)));
    }
  }

  @Test
  void aFrozenSlotRefusesAsMovingRecordsNothingAndServesTheSameKeyAfterAnAbort() {
    long lease = granted(apply(key(1), acquire(A))).lease().leaseId();
    int slot = Slots.of(A);
    stepped(apply(RequestKey.NONE, step(Step.FREEZE, slot, 2, -1)));

    Result refused = apply(key(2), acquire(A));
    assertEquals(new Result.Misrouted(slot, 0, 2, true), refused);
    assertEquals(new Result.Misrouted(slot, 0, 2, true),
        apply(key(3), new RenewLease(lease, 1, 10, 0, 0, 0, 0)), "an id resolves to its tenant's slot");
    assertEquals(new Result.Misrouted(slot, 0, 2, true),
        apply(key(4), SecurityCommand.Authorized.of("svc", List.of(A), acquire(A))),
        "an authorized command is judged by the command it wraps");
    granted(apply(key(5), acquire(B)));

    stepped(apply(RequestKey.NONE, step(Step.UNFREEZE, slot, 2, -1)));
    Result retried = apply(key(2), acquire(A));
    assertNotEquals(lease, granted(retried).lease().leaseId(),
        "the refused key was not recorded: its retry is a new decision");
    assertEquals(retried, apply(key(2), acquire(A)), "and that decision is the key's answer from then on");
  }

  @Test
  void aReleasedSlotNamesItsNewOwner() {
    int slot = Slots.of(A);
    stepped(apply(RequestKey.NONE, step(Step.FREEZE, slot, 2, -1)));
    assertEquals(new Result.SlotStepped(slot, SlotState.Phase.ABSENT.code(), 2, 3),
        apply(RequestKey.NONE, step(Step.RELEASE, slot, 2, 3)));
    assertEquals(new Result.Misrouted(slot, 3, 2, false), apply(key(1), acquire(A)));
    assertEquals(new Result.Misrouted(slot, 3, 2, false),
        apply(key(3), new RenewLease(SlotIds.of(99, slot), 1, 10, 0, 0, 0, 0)),
        "an id this group never minted is routed by the slot it carries, not answered unknown");
    assertTrue(slots.admit(Slots.of(B)) instanceof Admission.Admitted);
    granted(apply(key(2), acquire(B)));
  }

  @Test
  void mintedIdsCarryTheirTenantsSlot() {
    long lease = granted(apply(key(1), acquire(A))).lease().leaseId();
    long other = granted(apply(key(2), acquire(B))).lease().leaseId();
    assertEquals(Slots.of(A), SlotIds.slotOf(lease));
    assertEquals(Slots.of(B), SlotIds.slotOf(other));
    assertEquals(SlotIds.counterOf(lease) + 1, SlotIds.counterOf(other), "one counter per group");
  }

  @Test
  void aRequestsRecordKeepsTheSlotItActedIn() {
    long lease = granted(apply(key(1), acquire(A))).lease().leaseId();
    apply(key(2), new RenewLease(lease, 1, 10, 0, 0, 0, 0));
    apply(key(3), new RenewLease(SlotIds.of(77, Slots.of(B)), 1, 10, 0, 0, 0, 0));
    apply(key(4), new SecurityCommand.RevokeToken(5, "admin"));
    java.util.Map<Long, Integer> slotBySequence = new java.util.HashMap<>();
    store.forEachIdempotencyRecord((k, r) -> slotBySequence.put(k.sequence(), r.slot()));
    assertEquals(java.util.Map.of(1L, Slots.of(A), 2L, Slots.of(A), 3L, Slots.of(B),
        4L, IdempotencyRecord.NO_SLOT), slotBySequence,
        "a tenant's slot, an id's slot (even one this group never minted), none for state of no tenant");
  }

  @Test
  void idsCarrySlotsOnlyFromTheSwitchInTheLog() {
    Replica plain = new Replica(OPTIONS, new MemoryLedgerStore(), FamilyStore.EMPTY,
        RocksCoordinatorState.ledgers(OPTIONS));
    plain.apply(1, 0, Batch.of(1_000, List.of(new Proposal(RequestKey.NONE, new SetLimit(new Limit(A, "api",
        1_000, 100, Mode.HARD, 10_000, 0, 0, Policy.FREE_CAPACITY, 0))))));
    Result first = plain.apply(1, 1, Batch.of(1_010, List.of(new Proposal(key(1), acquire(A))))).get(0);
    assertEquals(1, granted(first).lease().leaseId(), "entries written before the switch mint as they did");
    assertEquals(new Result.IdsSlotted(),
        plain.apply(1, 2, Batch.of(1_020, List.of(new Proposal(RequestKey.NONE, new SlottedIds())))).get(0));
    plain.apply(1, 3, Batch.of(1_030, List.of(new Proposal(RequestKey.NONE, new SlottedIds()))));
    Result second = plain.apply(1, 4, Batch.of(1_040, List.of(new Proposal(key(2), acquire(A))))).get(0);
    assertEquals(SlotIds.of(2, Slots.of(A)), granted(second).lease().leaseId(),
        "after it, the same counter with the tenant's slot (a repeated switch changes nothing)");
  }

  @Test
  void aReadOfATenantIsAnsweredOnlyWhereItsSlotIsServed() {
    int slot = Slots.of(A);
    stepped(apply(RequestKey.NONE, step(Step.FREEZE, slot, 2, -1)));
    assertEquals(new QueryResult.Misrouted(slot, 0, 2, true), replica.query(new Query.GetLimit(A, "api"), now));
    assertEquals(new QueryResult.Misrouted(slot, 0, 2, true),
        replica.query(new Query.Quota(new QuotaQuery.ListReservations(A + "/shop")), now));
    assertInstanceOf(QueryResult.LimitAnswer.class, replica.query(new Query.GetLimit(B, "api"), now));
    QueryResult.LimitList all = assertInstanceOf(QueryResult.LimitList.class,
        replica.query(new Query.ListLimits(), now), "a listing over every tenant answers what the group holds");
    assertEquals(2, all.limits().size());
    assertEquals(new QueryResult.SlotTableAnswer(0, 255, 1, 0, 0), replica.query(new Query.SlotTable(), now));
    stepped(apply(RequestKey.NONE, step(Step.RELEASE, slot, 2, 4)));
    assertEquals(new QueryResult.SlotTableAnswer(0, 255, 0, 0, 1), replica.query(new Query.SlotTable(), now));
    assertEquals(new QueryResult.Misrouted(slot, 4, 2, false), replica.query(new Query.GetEntry(A + "/sessions", "k"), now));
  }

  @Test
  void aGroupServingEverySlotAdmitsEverything() {
    assertTrue(slots.servesEverySlot());
    granted(apply(key(1), acquire(A)));
    stepped(apply(RequestKey.NONE, step(Step.FREEZE, Slots.of(A), 2, -1)));
    assertTrue(!slots.servesEverySlot());
    stepped(apply(RequestKey.NONE, step(Step.UNFREEZE, Slots.of(A), 2, -1)));
    assertTrue(slots.servesEverySlot(), "the count of unserved slots follows every step");
  }

  @Test
  void aStepThatDoesNotFitIsRefusedAndChangesNothing() {
    int slot = Slots.of(A);
    Result early = apply(RequestKey.NONE, step(Step.ACTIVATE, slot, 2, -1));
    assertEquals(Outcome.VERSION_MISMATCH, assertInstanceOf(Result.Rejected.class, early).outcome());
    assertTrue(slots.servesEverySlot());
    stepped(apply(RequestKey.NONE, step(Step.FREEZE, slot, 2, -1)));
    assertEquals(stepped(apply(RequestKey.NONE, step(Step.FREEZE, slot, 2, -1))),
        new Result.SlotStepped(slot, SlotState.Phase.FROZEN.code(), 2, 0), "a repeat answers as done");
    assertInstanceOf(Result.Rejected.class, apply(RequestKey.NONE, step(Step.UNFREEZE, slot, 1, -1)),
        "an earlier attempt's unfreeze cannot thaw this one's freeze");
    assertEquals(new Admission.Moving(slot, 2), slots.admit(slot));
  }

  @Test
  void aClientCannotSendAPlacementStep() {
    Result r = apply(key(1), SecurityCommand.Authorized.of("svc", List.of(), step(Step.FREEZE, 3, 2, -1)));
    assertEquals(Outcome.INVALID_ARGUMENT, assertInstanceOf(Result.Rejected.class, r).outcome());
    assertTrue(slots.servesEverySlot());
  }

  private static SlotStep step(Step step, int slot, long epoch, int other) {
    return new SlotStep(step, slot, epoch, other);
  }

  private static Result.SlotStepped stepped(Result r) {
    return assertInstanceOf(Result.SlotStepped.class, r, r.toString());
  }

  private static AcquireLease acquire(String tenant) {
    return new AcquireLease(tenant, "api", "h", 10, 0);
  }

  private static RequestKey key(long sequence) {
    return new RequestKey(7, 9, sequence);
  }

  private static Result.LeaseGranted granted(Result r) {
    return assertInstanceOf(Result.LeaseGranted.class, r, r.toString());
  }

  private Result apply(RequestKey key, Command command) {
    now += 10;
    Batch batch = BatchCodec.decode(BatchCodec.encode(Batch.of(now, List.of(new Proposal(key, command)))));
    Result r = replica.apply(1, index++, batch).get(0);
    store.commit(replica.takeChanges());
    return r;
  }

  private static String otherSlotThan(String tenant) {
    for (int i = 0; ; i++) {
      String other = "tenant-" + i;
      if (Slots.of(other) != Slots.of(tenant)) {
        return other;
      }
    }
  }
}
