package dev.ration.statemachine.lease;

import dev.ration.wire.lease.Limit;
import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.lease.LimitStatus;

import dev.ration.wire.Mode;
import dev.ration.wire.Policy;

import static dev.ration.statemachine.Fixtures.acquire;
import static dev.ration.statemachine.Fixtures.renew;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.ration.statemachine.Fixtures.Driver;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.store.RocksCoordinatorState;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demand-driven policies through the real ledger on RocksDB, verify() after every entry
 * (Driver): a cold holder shrinks on its next renewal but its old share stays counted until it
 * acknowledges; the hot holder grows only into what that frees; a newcomer gets a zero-share
 * lease that puts its demand on record; demand survives a restart. R=100/s, B=20, lease 1000 ms,
 * grace 100 ms.
 */
class AllocationPolicyLedgerTest {
  static final long T0 = 10_000;

  @TempDir Path dir;
  RocksCoordinatorState state;
  Driver d;

  void open(Policy policy) {
    state = RocksCoordinatorState.open(dir.resolve("db"), StateOptions.defaults());
    d = new Driver(state);
    d.at(T0, new SetLimit(new Limit("t", "r", 100, 20, Mode.HARD, 1000, 100, 0, policy, 0)));
  }

  @AfterEach
  void close() {
    state.close();
  }

  LimitStatus status() {
    return ((QueryResult.LimitAnswer) state.query(new Query.GetLimit("t", "r"), 0)).limit().orElseThrow();
  }

  LeaseView lease(Result r) {
    return r instanceof Result.LeaseGranted g ? g.lease() : ((Result.LeaseRenewed) r).lease();
  }

  @Test
  void fairShareShrinksColdTwoPhaseAndGrowsHotFromFreedCapacity() {
    open(Policy.FAIR_SHARE);
    LeaseView a = lease(d.at(T0 + 10, acquire("a", 100, 20)));
    assertEquals(100, a.rateShare());
    assertEquals(20, a.burstShare());
    // b arrives with everything held by a: a zero-share lease that records b's demand.
    LeaseView b = lease(assertInstanceOf(Result.LeaseGranted.class, d.at(T0 + 20, acquire("b", 100, 20))));
    assertEquals(0, b.rateShare());
    assertEquals(0, b.burstShare());
    assertEquals(200, status().demandRate());
    // a renews: its fair target is 50/10; the old 100/20 stays counted (pending shrink).
    a = lease(d.at(T0 + 500, renew(a.leaseId(), a.version(), 100, 20)));
    assertEquals(50, a.rateShare());
    assertEquals(10, a.burstShare());
    assertEquals(100, a.countedRate());
    assertEquals(1, status().pendingShrinks());
    // b renews before a acknowledges: nothing is free, so b cannot grow yet.
    b = lease(d.at(T0 + 520, renew(b.leaseId(), b.version(), 100, 20)));
    assertEquals(0, b.rateShare());
    // a acknowledges the smaller version: the difference becomes free.
    a = lease(d.at(T0 + 1000, renew(a.leaseId(), a.version(), 100, 20)));
    assertEquals(50, a.countedRate());
    assertEquals(0, status().pendingShrinks());
    b = lease(d.at(T0 + 1010, renew(b.leaseId(), b.version(), 100, 20)));
    assertEquals(50, b.rateShare());
    assertEquals(10, b.burstShare());
    // Demand shifts to b: a reports 10, shrinks to 10; b grows to 90 only after the ack.
    a = lease(d.at(T0 + 1500, renew(a.leaseId(), a.version(), 10, 2)));
    assertEquals(10, a.rateShare());
    b = lease(d.at(T0 + 1510, renew(b.leaseId(), b.version(), 100, 20)));
    assertEquals(50, b.rateShare(), "a's 50 is still counted until acknowledged");
    a = lease(d.at(T0 + 2000, renew(a.leaseId(), a.version(), 10, 2)));
    b = lease(d.at(T0 + 2010, renew(b.leaseId(), b.version(), 100, 20)));
    assertEquals(90, b.rateShare());
    assertEquals(18, b.burstShare());
    LimitStatus s = status();
    assertEquals(100, s.countedRate());
    assertEquals(110, s.demandRate());
    assertEquals(22, s.demandBurst());
    // Demand is stored: a restart keeps the split.
    state.close();
    state = RocksCoordinatorState.open(dir.resolve("db"), StateOptions.defaults());
    state.verify();
    d = new Driver(state);
    assertEquals(110, status().demandRate());
    b = lease(d.at(T0 + 2500, renew(b.leaseId(), b.version(), 100, 20)));
    assertEquals(90, b.rateShare());
  }

  @Test
  void unrenewedShrinkIsFreedWhenThePendingVersionExpires() {
    open(Policy.FAIR_SHARE);
    LeaseView a = lease(d.at(T0 + 10, acquire("a", 100, 20)));
    LeaseView b = lease(d.at(T0 + 20, acquire("b", 100, 20)));
    a = lease(d.at(T0 + 500, renew(a.leaseId(), a.version(), 100, 20)));
    assertEquals(100, a.countedRate());
    b = lease(d.at(T0 + 1000, renew(b.leaseId(), b.version(), 100, 20)));
    assertEquals(0, b.rateShare(), "a's old 100 is still counted");
    // a never acknowledges; its pending share is counted until the old version's countedUntil
    // (T0 + 10 + 1000 + 100), then Tick frees it and b grows into the freed part.
    d.at(T0 + 1115, new dev.ration.statemachine.command.Tick(100));
    assertEquals(0, status().pendingShrinks());
    assertEquals(50, status().countedRate());
    b = lease(d.at(T0 + 1120, renew(b.leaseId(), b.version(), 100, 20)));
    assertEquals(50, b.rateShare());
    assertEquals(100, status().countedRate());
  }

  @Test
  void proportionalAndStaticSplits() {
    open(Policy.PROPORTIONAL);
    LeaseView a = lease(d.at(T0 + 10, acquire("a", 30, 4)));
    LeaseView b = lease(d.at(T0 + 20, acquire("b", 90, 12)));
    assertEquals(30, a.rateShare());
    assertEquals(70, b.rateShare(), "clipped to what is free");
    a = lease(d.at(T0 + 500, renew(a.leaseId(), a.version(), 30, 4)));
    assertEquals(25, a.rateShare(), "100·30/120");
    state.close();
    state = null;

    dir = dir.resolve("static");
    open(Policy.STATIC);
    a = lease(d.at(T0 + 10, acquire("a", 1, 1)));
    assertEquals(100, a.rateShare(), "alone: the whole limit");
    b = lease(d.at(T0 + 20, acquire("b", 1, 1)));
    assertEquals(0, b.rateShare());
    a = lease(d.at(T0 + 500, renew(a.leaseId(), a.version(), 1, 1)));
    assertEquals(50, a.rateShare());
    a = lease(d.at(T0 + 900, renew(a.leaseId(), a.version(), 1, 1)));
    b = lease(d.at(T0 + 910, renew(b.leaseId(), b.version(), 1, 1)));
    assertEquals(50, b.rateShare());
    assertEquals(10, b.burstShare());
  }
}
