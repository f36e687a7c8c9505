package dev.ration.statemachine.lease;

import static dev.ration.statemachine.Fixtures.acquire;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.Fixtures.Driver;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.StoreException;
import dev.ration.statemachine.command.LeaseCommand.AcquireSlots;
import dev.ration.statemachine.command.LeaseCommand.NewEpoch;
import dev.ration.statemachine.command.LeaseCommand.RenewSlots;
import dev.ration.statemachine.command.LeaseCommand.ReturnLease;
import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.statemachine.command.LeaseCommand.SetLimitConcurrency;
import dev.ration.statemachine.command.LeaseCommand.SlotRenewal;
import dev.ration.statemachine.command.Tick;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.store.RocksCoordinatorState;
import dev.ration.wire.Mode;
import dev.ration.wire.Outcome;
import dev.ration.wire.Policy;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.lease.SlotLease;
import dev.ration.wire.lease.SlotStatus;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Concurrency slots in the lease ledger, on real RocksDB with verify() after every entry. Limit
 * t/r: R=100/s, B=10, C=10 slots, lease 1000 ms, grace 100 ms.
 */
class SlotLedgerTest {
  static final long T0 = 10_000;

  @TempDir Path dir;
  RocksCoordinatorState state;
  Driver d;

  @BeforeEach
  void open() {
    state = RocksCoordinatorState.open(dir.resolve("db"), StateOptions.defaults());
    d = new Driver(state);
    setCap(T0, Policy.FREE_CAPACITY, 10);
  }

  @AfterEach
  void close() {
    state.close();
  }

  static Limit limit(Policy policy) {
    return new Limit("t", "r", 100, 10, Mode.HARD, 1000, 100, 0, policy, 0);
  }

  Result.LimitConcurrencySet setCap(long at, Policy policy, long c) {
    return assertInstanceOf(Result.LimitConcurrencySet.class,
        d.at(at, new SetLimitConcurrency(limit(policy), c)));
  }

  SlotStatus slots() {
    return ((QueryResult.SlotAnswer) state.query(new Query.GetSlots("t", "r"), 0))
        .status().orElseThrow();
  }

  SlotLease grant(long at, String holder, long demand) {
    return assertInstanceOf(Result.SlotsGranted.class,
        d.at(at, new AcquireSlots("t", "r", holder, demand))).lease();
  }

  Result.SlotRenewalAnswer renew(long at, SlotLease lease, long presented, long running,
      long queued, long release) {
    Result.SlotsRenewed r = assertInstanceOf(Result.SlotsRenewed.class, d.at(at,
        new RenewSlots(List.of(
            new SlotRenewal(lease.leaseId(), presented, running, queued, release)))));
    return r.renewals().get(0);
  }

  SlotLease renewed(long at, SlotLease lease, long presented, long running, long queued,
      long release) {
    Result.SlotRenewalAnswer a = renew(at, lease, presented, running, queued, release);
    assertEquals(Outcome.SUCCESS, a.outcome(), a.message());
    return a.lease();
  }

  /** Goal: grants come from free slots only; a full cap refuses with a retry-after. */
  @Test
  void acquireGrantsFreeSlotsAndRefusesOverGrant() {
    SlotLease a = grant(T0, "a", 6);
    assertEquals(6, a.slotShare());
    SlotLease b = grant(T0 + 1, "b", 8);
    assertEquals(4, b.slotShare());
    Result.Rejected no = assertInstanceOf(Result.Rejected.class,
        d.at(T0 + 2, new AcquireSlots("t", "r", "c", 1)));
    assertEquals(Outcome.LIMIT_EXHAUSTED, no.outcome());
    assertEquals(1100 - 2, no.retryAfterMillis());
    assertEquals(10, slots().countedSlots());
    assertEquals(14, slots().demandSlots());
    // A rate lease on the same limit holds no slots, and slots do not take rate.
    Result.LeaseGranted rate = assertInstanceOf(Result.LeaseGranted.class,
        d.at(T0 + 3, acquire("r", 100, 10)));
    assertEquals(100, rate.lease().rateShare());
    assertEquals(2, slots().slotLeases());
  }

  /** Goal: a limit without a cap grants no slots, with a message saying why. */
  @Test
  void noCapNoSlots() {
    d.at(T0 + 1, new SetLimitConcurrency(limit(Policy.FREE_CAPACITY).withVersion(0), 0));
    Result.Rejected no = assertInstanceOf(Result.Rejected.class,
        d.at(T0 + 2, new AcquireSlots("t", "r", "a", 1)));
    assertTrue(no.message().contains("no concurrency cap"), no.message());
    Result.Rejected bad = assertInstanceOf(Result.Rejected.class,
        d.at(T0 + 3, new SetLimitConcurrency(limit(Policy.FREE_CAPACITY), -5)));
    assertEquals(Outcome.INVALID_ARGUMENT, bad.outcome());
  }

  /** Goal: a plain SetLimit keeps the cap; a stale expected version changes nothing. */
  @Test
  void setLimitKeepsTheCap() {
    d.at(T0 + 1, new SetLimit(limit(Policy.FAIR_SHARE)));
    assertEquals(10, slots().concurrency());
    Result.Rejected stale = assertInstanceOf(Result.Rejected.class,
        d.at(T0 + 2, new SetLimitConcurrency(limit(Policy.FAIR_SHARE).withVersion(1), 3)));
    assertEquals(Outcome.STALE_CONFIG, stale.outcome());
    assertEquals(10, slots().concurrency());
  }

  /** Goal: renewal keeps what is held and moves expiry; a shrink is two-phase. */
  @Test
  void twoPhaseSlotShrink() {
    setCap(T0, Policy.FAIR_SHARE, 10);
    SlotLease a = grant(T0, "a", 10);
    assertEquals(10, a.slotShare());
    SlotLease b = grant(T0 + 1, "b", 10);
    assertEquals(0, b.slotShare(), "nothing free: b waits with its demand on record");
    SlotLease a2 = renewed(T0 + 100, a, a.version(), 10, 5, SlotRenewal.NO_RELEASE);
    assertEquals(5, a2.slotShare(), "fair share of 10 between two");
    assertEquals(10, a2.countedSlots(), "old share counted until acknowledged");
    assertEquals(T0 + 1200, a2.countedUntilMillis());
    SlotLease b2 = renewed(T0 + 150, b, b.version(), 0, 10, SlotRenewal.NO_RELEASE);
    assertEquals(0, b2.slotShare(), "nothing free before a acknowledges");
    SlotLease a3 = renewed(T0 + 200, a2, a2.version(), 5, 5, SlotRenewal.NO_RELEASE);
    assertEquals(5, a3.countedSlots(), "acknowledged: the shrink is over");
    SlotLease b3 = renewed(T0 + 250, b2, b2.version(), 0, 10, SlotRenewal.NO_RELEASE);
    assertEquals(5, b3.slotShare());
    assertEquals(10, slots().countedSlots());
  }

  /** Goal: without an acknowledgement the old share is counted until countedUntil, then freed. */
  @Test
  void unacknowledgedShrinkEndsAtTheOldCountedUntil() {
    setCap(T0, Policy.FAIR_SHARE, 10);
    SlotLease a = grant(T0, "a", 10);
    grant(T0 + 1, "b", 10);
    SlotLease a2 = renewed(T0 + 100, a, a.version(), 10, 0, SlotRenewal.NO_RELEASE);
    assertEquals(10, a2.countedSlots());
    d.at(T0 + 1099, new Tick(100));
    assertEquals(15, slots().countedSlots() + 5, "still counted just before the old end");
    d.at(T0 + 1100, new Tick(100));
    assertEquals(5, slots().countedSlots(), "pending part freed at the old countedUntil");
  }

  /** Goal: a holder's promise to run at most `release` frees the rest in one renewal. */
  @Test
  void releaseFreesAtOnce() {
    setCap(T0, Policy.FAIR_SHARE, 10);
    SlotLease a = grant(T0, "a", 10);
    SlotLease b = grant(T0 + 1, "b", 10);
    SlotLease a2 = renewed(T0 + 100, a, a.version(), 1, 0, 1);
    assertEquals(1, a2.slotShare());
    assertEquals(1, a2.countedSlots(), "no pending part: the holder runs at most 1");
    SlotLease b2 = renewed(T0 + 101, b, b.version(), 0, 10, SlotRenewal.NO_RELEASE);
    assertEquals(9, b2.slotShare(), "the hot holder gets the freed slots at its next renewal");
    assertEquals(10, slots().countedSlots());
    // A release above what the lease counts frees nothing and grants nothing extra.
    SlotLease a3 = renewed(T0 + 200, a2, a2.version(), 1, 0, 50);
    assertEquals(1, a3.slotShare());
  }

  /** Goal: a release still below the new target keeps the larger share counted. */
  @Test
  void releaseBelowTheNewShareNeedsNoPendingPart() {
    SlotLease a = grant(T0, "a", 4);
    SlotLease a2 = renewed(T0 + 100, a, a.version(), 0, 6, 0);
    assertEquals(6, a2.slotShare());
    assertEquals(6, a2.countedSlots());
  }

  /** Goal: lowering C revokes nothing; the ceiling falls as shares shrink (same rule as R). */
  @Test
  void loweringTheCapIsAbsorbedThroughTheCeiling() {
    SlotLease a = grant(T0, "a", 8);
    d.at(T0 + 10, new SetLimitConcurrency(limit(Policy.FREE_CAPACITY), 4));
    SlotStatus s = slots();
    assertEquals(4, s.concurrency());
    assertEquals(8, s.countedSlots());
    assertEquals(8, s.slotCeiling());
    SlotLease a2 = renewed(T0 + 100, a, a.version(), 8, 0, SlotRenewal.NO_RELEASE);
    assertEquals(8, a2.slotShare(), "free-capacity keeps what is held (available = counted)");
    SlotLease a3 = renewed(T0 + 200, a2, a2.version(), 2, 0, SlotRenewal.NO_RELEASE);
    assertEquals(2, a3.slotShare());
    SlotLease a4 = renewed(T0 + 300, a3, a3.version(), 2, 0, SlotRenewal.NO_RELEASE);
    assertEquals(2, a4.countedSlots());
    assertEquals(4, slots().slotCeiling(), "ceiling back at C once counted fell below it");
    assertEquals(2, grant(T0 + 301, "b", 5).slotShare(), "grants only under the new C");
  }

  /** Goal: a new epoch keeps slots counted until epochStart + duration + grace. */
  @Test
  void newEpochExtendsSlotCounting() {
    SlotLease a = grant(T0, "a", 3);
    d.at(T0 + 900, new NewEpoch("n2"));
    d.at(T0 + 1100, new Tick(100));
    assertEquals(3, slots().countedSlots(), "still counted after the lease's own countedUntil");
    assertEquals(Outcome.LEASE_EXPIRED, renew(T0 + 1101, a, a.version(), 0, 0, -1).outcome());
    d.at(T0 + 900 + 1100, new Tick(100));
    assertEquals(0, slots().countedSlots());
  }

  /** Goal: a returned slot lease frees its slots; bad renewals fail only themselves. */
  @Test
  void returnAndBadRenewals() {
    SlotLease a = grant(T0, "a", 3);
    Result.SlotsRenewed both = assertInstanceOf(Result.SlotsRenewed.class, d.at(T0 + 10,
        new RenewSlots(List.of(new SlotRenewal(a.leaseId(), a.version() + 5, 0, 0, -1),
            new SlotRenewal(a.leaseId(), a.version(), 3, 0, -1),
            new SlotRenewal(a.leaseId(), a.version(), -1, 0, -1),
            new SlotRenewal(a.leaseId(), a.version(), 0, 0, -2)))));
    assertEquals(Outcome.VERSION_MISMATCH, both.renewals().get(0).outcome());
    assertEquals(Outcome.SUCCESS, both.renewals().get(1).outcome());
    assertEquals(Outcome.INVALID_ARGUMENT, both.renewals().get(2).outcome());
    assertEquals(Outcome.INVALID_ARGUMENT, both.renewals().get(3).outcome());
    assertInstanceOf(Result.LeaseReturned.class, d.at(T0 + 20, new ReturnLease(a.leaseId(), both.renewals().get(1).lease().version(), 0)));
    assertEquals(0, slots().countedSlots());
    assertEquals(0, slots().slotLeases());
  }

  /** Goal: slots survive a restart (stored formats 3 and 4) and load back equal. */
  @Test
  void restartKeepsSlots() {
    grant(T0, "a", 3);
    d.at(T0 + 10, new SetLimitConcurrency(limit(Policy.FREE_CAPACITY), 2));
    SlotStatus before = slots();
    state.close();
    state = RocksCoordinatorState.open(dir.resolve("db"), StateOptions.defaults());
    state.verify();
    assertEquals(before, slots());
  }

  /** Goal: records without slots keep their old bytes; a slot format without slots is refused. */
  @Test
  void formatsWithoutSlotsAreUnchanged() {
    Limit l = limit(Policy.FREE_CAPACITY).withVersion(3);
    byte[] old = LeaseFormat.limitValue(new LeaseFormat.StoredLimit(l, 1, 100, 10, 0));
    assertEquals(2, old[0]);
    byte[] withSlots = LeaseFormat.limitValue(new LeaseFormat.StoredLimit(l, 1, 100, 10, 0, 5, 5));
    assertEquals(3, withSlots[0]);
    assertEquals(new LeaseFormat.StoredLimit(l, 1, 100, 10, 0, 5, 5), LeaseFormat.readLimit(withSlots));
    byte[] zeros = LeaseFormat.limitValue(new LeaseFormat.StoredLimit(l, 1, 100, 10, 0, 5, 0));
    zeros[0] = 3;
    byte[] forged = java.util.Arrays.copyOf(zeros, zeros.length);
    java.util.Arrays.fill(forged, forged.length - 16, forged.length, (byte) 0);
    assertThrows(StoreException.class, () -> LeaseFormat.readLimit(forged));
    Lease plain = new Lease(7, "t", "r", "h", 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 8, 9);
    assertEquals(3, LeaseFormat.leaseValue(plain)[0]);
    Lease slotted = new Lease(7, "t", "r", "h", 1, 2, 0, 0, 5, 6, 7, 0, 0, 0, 0, 0, 2, 3, 4);
    byte[] v = LeaseFormat.leaseValue(slotted);
    assertEquals(4, v[0]);
    assertEquals(slotted, LeaseFormat.readLease(LeaseFormat.leaseKey(7), v));
    byte[] noSlots = java.util.Arrays.copyOf(v, v.length);
    java.util.Arrays.fill(noSlots, noSlots.length - 24, noSlots.length, (byte) 0);
    assertThrows(StoreException.class, () -> LeaseFormat.readLease(LeaseFormat.leaseKey(7), noSlots));
    assertArrayEquals(LeaseFormat.leaseValue(plain),
        LeaseFormat.leaseValue(LeaseFormat.readLease(LeaseFormat.leaseKey(7),
            LeaseFormat.leaseValue(plain))));
  }
}
