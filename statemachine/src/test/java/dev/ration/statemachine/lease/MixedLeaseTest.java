package dev.ration.statemachine.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.ration.statemachine.Fixtures.Driver;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.LeaseCommand.AcquireSlots;
import dev.ration.statemachine.command.LeaseCommand.RenewLease;
import dev.ration.statemachine.command.LeaseCommand.RenewSlots;
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
import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.lease.SlotLease;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One lease holding rate, burst and slots: rate renewals and slot renewals run the same
 * admission path, each changing only its own kind's share and pending part, and one pending
 * end covering both. On real RocksDB with verify() after every entry. Limit t/r: R=100/s,
 * B=10, C=10 slots, free capacity, lease 1000 ms, grace 100 ms.
 */
class MixedLeaseTest {
  static final long T0 = 10_000;

  @TempDir Path dir;
  RocksCoordinatorState state;
  Driver d;

  @BeforeEach
  void open() {
    state = RocksCoordinatorState.open(dir.resolve("db"), StateOptions.defaults());
    d = new Driver(state);
    assertInstanceOf(Result.LimitConcurrencySet.class, d.at(T0, new SetLimitConcurrency(
        new Limit("t", "r", 100, 10, Mode.HARD, 1000, 100, 0, Policy.FREE_CAPACITY, 0), 10)));
  }

  @AfterEach
  void close() {
    state.close();
  }

  LeaseView rate() {
    return ((QueryResult.LeaseList) state.query(new Query.ListLeases("t", "r"), 0))
        .leases().get(0);
  }

  SlotLease slots() {
    return ((QueryResult.SlotAnswer) state.query(new Query.GetSlots("t", "r"), 0))
        .leases().get(0);
  }

  LeaseView renewRate(long at, long presented, long demandRate, long demandBurst) {
    Result r = d.at(at, new RenewLease(1, presented, demandRate, demandBurst, 0, 0, 0));
    return assertInstanceOf(Result.LeaseRenewed.class, r).lease();
  }

  SlotLease renewSlots(long at, long presented, long running, long release) {
    Result.SlotsRenewed r = assertInstanceOf(Result.SlotsRenewed.class, d.at(at,
        new RenewSlots(List.of(new SlotRenewal(1, presented, running, 0, release)))));
    Result.SlotRenewalAnswer a = r.renewals().get(0);
    assertEquals(Outcome.SUCCESS, a.outcome(), a.message());
    return a.lease();
  }

  /** Goal: each kind's renewal keeps the other kind's share, and shrinks share one end. */
  @Test
  void eachKindRenewsOnlyItsOwnShare() {
    SlotLease granted = assertInstanceOf(Result.SlotsGranted.class,
        d.at(T0, new AcquireSlots("t", "r", "a", 4))).lease();
    assertEquals(1, granted.leaseId());

    LeaseView v1 = renewRate(T0 + 100, granted.version(), 50, 5);
    assertEquals(50, v1.rateShare());
    assertEquals(5, v1.burstShare());
    assertEquals(4, slots().slotShare(), "a rate renewal keeps the slots");

    SlotLease s2 = renewSlots(T0 + 200, v1.version(), 2, SlotRenewal.NO_RELEASE);
    assertEquals(2, s2.slotShare());
    assertEquals(4, s2.countedSlots(), "the slots in use stay counted until acknowledged");
    assertEquals(50, rate().rateShare(), "a slot renewal keeps rate and burst");
    assertEquals(5, rate().burstShare());

    // An older version presented: the slot shrink stays pending beside the new rate shrink.
    LeaseView v3 = renewRate(T0 + 300, v1.version(), 20, 5);
    assertEquals(20, v3.rateShare());
    assertEquals(50, v3.countedRate());
    assertEquals(2, slots().slotShare());
    assertEquals(4, slots().countedSlots());

    // A release drops the pending slots at once but not the pending rate.
    SlotLease s4 = renewSlots(T0 + 400, v1.version(), 1, 1);
    assertEquals(1, s4.slotShare());
    assertEquals(1, s4.countedSlots());
    assertEquals(50, rate().countedRate(), "the rate shrink is still unacknowledged");

    // Tick at the one pending end (the countedUntil of the version current at the rate shrink,
    // T0 + 200 + 1000 + 100) frees what older versions counted, of both kinds.
    d.at(T0 + 1300, new Tick(100));
    assertEquals(20, rate().countedRate());
    assertEquals(1, slots().countedSlots());

    LeaseView v5 = renewRate(T0 + 1300, s4.version(), 20, 5);
    assertEquals(20, v5.countedRate());
    assertEquals(1, slots().slotShare());
  }
}
