package dev.ration.statemachine.lease;

import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.lease.LimitStatus;

import dev.ration.wire.Mode;
import dev.ration.wire.Policy;

import static dev.ration.statemachine.Fixtures.acquire;
import static dev.ration.statemachine.Fixtures.giveBack;
import static dev.ration.statemachine.Fixtures.renew;
import static dev.ration.statemachine.Fixtures.setLimit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.Fixtures;
import dev.ration.statemachine.Fixtures.Driver;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.LeaseCommand.NewEpoch;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.LeaseCommand.ReturnLease;
import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.statemachine.command.Tick;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.wire.Outcome;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.store.RocksCoordinatorState;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Domain tests of the lease ledger with explicit ledger times, on real RocksDB; verify() runs
 * after every entry (in the Driver). Limit t/r: R=100/s, B=10, lease 1000 ms, grace 100 ms.
 */
class LeaseLedgerTest {
  static final long T0 = 10_000;

  @TempDir Path dir;
  RocksCoordinatorState state;
  Driver d;

  @BeforeEach
  void open() {
    state = RocksCoordinatorState.open(dir.resolve("db"), StateOptions.defaults());
    d = new Driver(state);
    d.at(T0, setLimit("t", "r", 100, 10, 1000, 100));
  }

  @AfterEach
  void close() {
    state.close();
  }

  LimitStatus status() {
    return ((QueryResult.LimitAnswer) state.query(new Query.GetLimit("t", "r"), 0)).limit().orElseThrow();
  }

  Result.LeaseGranted grant(long time, String holder, long rate, long burst) {
    return assertInstanceOf(Result.LeaseGranted.class, d.at(time, acquire(holder, rate, burst)));
  }

  Result.Rejected rejected(Result r, Outcome outcome) {
    Result.Rejected rejected = assertInstanceOf(Result.Rejected.class, r);
    assertEquals(outcome, rejected.outcome(), rejected.message());
    return rejected;
  }

  /** Goal: grants come from free capacity only, and the ledger refuses to over-grant. */
  @Test
  void acquireGrantsFreeCapacityAndRefusesOverGrant() {
    Result.LeaseGranted a = grant(T0, "a", 60, 4);
    assertEquals(60, a.lease().rateShare());
    assertEquals(4, a.lease().burstShare());
    assertEquals(0, a.startBalance());
    assertEquals(T0 + 1000, a.lease().expiresAtMillis());
    assertEquals(T0 + 1100, a.lease().countedUntilMillis());
    Result.LeaseGranted b = grant(T0 + 10, "b", 80, 80);
    assertEquals(40, b.lease().rateShare());
    assertEquals(6, b.lease().burstShare());
    Result.Rejected no = rejected(d.at(T0 + 20, acquire("c", 1, 1)), Outcome.LIMIT_EXHAUSTED);
    assertEquals(1100 - 20, no.retryAfterMillis(), "until a's countedUntil");
    assertEquals(100, status().countedRate());
    assertEquals(10, status().countedBurst());
    rejected(d.at(T0, new dev.ration.statemachine.command.LeaseCommand.AcquireLease("t", "zzz", "a", 1, 1)),
        Outcome.LIMIT_UNKNOWN);
  }

  /** Goal: renewal moves expiry, mints a new version, and never hands out tokens. */
  @Test
  void renewKeepsBalanceAndMovesExpiry() {
    Result.LeaseGranted a = grant(T0, "a", 50, 5);
    Result.LeaseRenewed r = assertInstanceOf(Result.LeaseRenewed.class,
        d.at(T0 + 500, renew(a.lease().leaseId(), a.lease().version(), 50, 5)));
    assertTrue(r.lease().version() > a.lease().version());
    assertEquals(T0 + 1500, r.lease().expiresAtMillis());
    assertEquals(T0 + 1600, r.lease().countedUntilMillis());
    assertEquals(0, status().pool(), "renewal never refills from the pool");
    rejected(d.at(T0 + 600, renew(a.lease().leaseId(), r.lease().version() + 1, 50, 5)),
        Outcome.VERSION_MISMATCH);
  }

  /** Goal: a shrink keeps counting the old share until the holder acknowledges it. */
  @Test
  void twoPhaseShrinkUntilAcknowledged() {
    Result.LeaseGranted a = grant(T0, "a", 60, 0);
    Result.LeaseGranted b = grant(T0, "b", 40, 0);
    Result.LeaseRenewed a2 = assertInstanceOf(Result.LeaseRenewed.class,
        d.at(T0 + 100, renew(a.lease().leaseId(), a.lease().version(), 20, 0)));
    assertEquals(20, a2.lease().rateShare());
    assertEquals(60, a2.lease().countedRate(), "old share still counted");
    assertEquals(1, status().pendingShrinks());
    Result.LeaseRenewed b2 = assertInstanceOf(Result.LeaseRenewed.class,
        d.at(T0 + 200, renew(b.lease().leaseId(), b.lease().version(), 80, 0)));
    assertEquals(40, b2.lease().rateShare(), "no growth before the shrink is acknowledged");
    // a presents the smaller version: acknowledged, the difference is free.
    Result.LeaseRenewed a3 = assertInstanceOf(Result.LeaseRenewed.class,
        d.at(T0 + 300, renew(a.lease().leaseId(), a2.lease().version(), 20, 0)));
    assertEquals(20, a3.lease().countedRate());
    Result.LeaseRenewed b3 = assertInstanceOf(Result.LeaseRenewed.class,
        d.at(T0 + 400, renew(b.lease().leaseId(), b2.lease().version(), 80, 0)));
    assertEquals(80, b3.lease().rateShare());
    assertEquals(100, status().countedRate());
  }

  /** Goal: an unacknowledged shrink is freed by Tick once the old version's countedUntil passes. */
  @Test
  void twoPhaseShrinkUntilOldExpiryPlusGrace() {
    Result.LeaseGranted a = grant(T0, "a", 60, 0);
    Result.LeaseRenewed a2 = assertInstanceOf(Result.LeaseRenewed.class,
        d.at(T0 + 100, renew(a.lease().leaseId(), a.lease().version(), 20, 0)));
    assertEquals(60, a2.lease().countedRate());
    assertEquals(new Result.Ticked(0), d.at(T0 + 1099, new Tick(100)));
    assertEquals(60, status().countedRate());
    assertEquals(new Result.Ticked(1), d.at(T0 + 1100, new Tick(100)));
    assertEquals(20, status().countedRate());
    assertEquals(0, status().pendingShrinks());
  }

  /** Goal: a lease is counted until expiresAt + grace, then freed by Tick, and is gone after. */
  @Test
  void expiryFreesAfterGrace() {
    Result.LeaseGranted a = grant(T0, "a", 100, 10);
    long id = a.lease().leaseId();
    rejected(d.at(T0 + 1000, renew(id, a.lease().version(), 100, 10)), Outcome.LEASE_EXPIRED);
    assertEquals(T0 + 1100, state.nextDueMillis());
    assertEquals(new Result.Ticked(0), d.at(T0 + 1099, new Tick(10)));
    assertEquals(100, status().countedRate());
    rejected(d.at(T0 + 1099, acquire("b", 1, 0)), Outcome.LIMIT_EXHAUSTED);
    assertEquals(new Result.Ticked(1), d.at(T0 + 1100, new Tick(10)));
    assertEquals(0, status().countedRate());
    rejected(d.at(T0 + 1200, renew(id, a.lease().version(), 1, 1)), Outcome.LEASE_EXPIRED);
    assertEquals(new Result.LeaseReturned(id, 0, true), d.at(T0 + 1200, giveBack(id, 1, 5)));
    rejected(d.at(T0 + 1200, renew(999, 1, 1, 1)), Outcome.LEASE_UNKNOWN);
    rejected(d.at(T0 + 1200, giveBack(999, 1, 1)), Outcome.LEASE_UNKNOWN);
  }

  /** Goal: returned tokens go to the pool and are handed out once, as a starting balance. */
  @Test
  void poolHandsOutReturnedTokensOnce() {
    Result.LeaseGranted a = grant(T0, "a", 50, 8);
    long id = a.lease().leaseId();
    assertEquals(new Result.LeaseReturned(id, 6, false),
        d.at(T0 + 10, giveBack(id, a.lease().version(), 6)));
    assertEquals(6, status().pool());
    assertEquals(0, status().countedBurst());
    assertEquals(new Result.LeaseReturned(id, 0, true), d.at(T0 + 20, giveBack(id, 1, 6)));
    assertEquals(6, status().pool(), "a second return credits nothing");
    Result.LeaseGranted b = grant(T0 + 30, "b", 10, 4);
    assertEquals(4, b.lease().burstShare(), "free burst is B - pool");
    assertEquals(4, b.startBalance());
    assertEquals(2, status().pool());
    Result.LeaseGranted c = grant(T0 + 40, "c", 10, 10);
    assertEquals(4, c.lease().burstShare(), "10 - 4 counted - 2 pool");
    assertEquals(2, c.startBalance());
    Result.LeaseGranted e = grant(T0 + 50, "e", 10, 10);
    assertEquals(2, e.lease().burstShare());
    assertEquals(0, e.startBalance(), "the pool was handed out already");
    // A return credits at most the lease's burst share and what fits under B.
    assertEquals(new Result.LeaseReturned(e.lease().leaseId(), 2, false),
        d.at(T0 + 60, giveBack(e.lease().leaseId(), e.lease().version(), 1_000)));
  }

  /** Goal: NewEpoch keeps every live lease counted until epochStart + leaseDuration + grace. */
  @Test
  void newEpochExtendsCounting() {
    Result.LeaseGranted a = grant(T0, "a", 50, 5);
    Result.EpochStarted e = assertInstanceOf(Result.EpochStarted.class,
        d.at(T0 + 900, new NewEpoch("n2")));
    assertEquals(1, e.epoch());
    assertEquals(T0 + 900, e.epochStartMillis());
    assertEquals(1, state.epoch());
    LeaseView v = leases().get(0);
    assertEquals(T0 + 900 + 1100, v.countedUntilMillis());
    assertEquals(T0 + 1000, v.expiresAtMillis(), "the holder's expiry does not move");
    assertEquals(new Result.Ticked(0), d.at(T0 + 1100, new Tick(10)), "old record is stale");
    assertEquals(50, status().countedRate());
    assertEquals(new Result.Ticked(1), d.at(T0 + 2000, new Tick(10)));
    assertEquals(0, status().leases());
    Result.LeaseGranted b = grant(T0 + 2000, "b", 1, 1);
    assertEquals(1, b.lease().epoch());
    assertTrue(a.lease().leaseId() < b.lease().leaseId());
  }

  QueryResult.StatusAnswer statusAnswer() {
    return (QueryResult.StatusAnswer) state.query(new Query.Status(), 0);
  }

  List<LeaseView> leases() {
    return ((QueryResult.LeaseList) state.query(new Query.ListLeases("t", "r"), 0)).leases();
  }

  /** Goal: lowering R below what is counted keeps leases, refuses new grants, shrinks on renewal. */
  @Test
  void limitDecreaseIsAbsorbedThroughTheCeiling() {
    Result.LeaseGranted a = grant(T0, "a", 80, 5);
    assertInstanceOf(Result.LimitSet.class, d.at(T0 + 10, setLimit("t", "r", 50, 10, 1000, 100)));
    assertEquals(80, status().rateCeiling());
    rejected(d.at(T0 + 20, acquire("b", 10, 0)), Outcome.LIMIT_EXHAUSTED);
    Result.LeaseRenewed a2 = assertInstanceOf(Result.LeaseRenewed.class,
        d.at(T0 + 30, renew(a.lease().leaseId(), a.lease().version(), 80, 5)));
    assertEquals(80, a2.lease().rateShare(), "may keep what it has counted, never more");
    Result.LeaseRenewed a3 = assertInstanceOf(Result.LeaseRenewed.class,
        d.at(T0 + 40, renew(a.lease().leaseId(), a2.lease().version(), 30, 5)));
    assertEquals(80, status().countedRate(), "shrink pending");
    d.at(T0 + 50, renew(a.lease().leaseId(), a3.lease().version(), 30, 5));
    assertEquals(30, status().countedRate());
    assertEquals(50, status().rateCeiling(), "ceiling fell back to R");
    assertEquals(20, grant(T0 + 60, "b", 100, 0).lease().rateShare());
    // Raising R raises the ceiling.
    d.at(T0 + 70, setLimit("t", "r", 500, 10, 1000, 100));
    assertEquals(500, status().rateCeiling());
  }

  /** Goal: a retried request gets its first answer and changes nothing, across and within batches. */
  @Test
  void idempotentDuplicates() {
    RequestKey k1 = new RequestKey(7, 8, 1);
    Result first = d.at(T0, k1, acquire("a", 10, 1));
    Result again = d.at(T0 + 5, k1, acquire("a", 10, 1));
    assertEquals(first, again);
    assertEquals(1, status().leases());
    RequestKey k2 = new RequestKey(7, 8, 2);
    List<Result> both = d.batch(Batch.of(T0 + 6, List.of(
        new Proposal(k2, acquire("b", 10, 1)), new Proposal(k2, acquire("b", 10, 1)),
        new Proposal(k2, acquire("b", 99, 9)))));
    assertEquals(both.get(0), both.get(1));
    Result.Rejected reused = rejected(both.get(2), Outcome.INVALID_ARGUMENT);
    assertEquals("request id 2 of client 00000000000000070000000000000008 was first used for"
        + " ACQUIRE_LEASE with other arguments; use a new request id", reused.message());
    assertEquals(2, status().leases());
    // A rejection is remembered too.
    RequestKey k3 = new RequestKey(7, 8, 3);
    Result bad = d.at(T0 + 7, k3, acquire("", 1, 1));
    rejected(bad, Outcome.INVALID_ARGUMENT);
    assertEquals(bad, d.at(T0 + 8, k3, acquire("", 1, 1)));
    rejected(d.at(T0 + 8, k3, acquire("fine", 1, 1)), Outcome.INVALID_ARGUMENT);
    assertEquals(bad, d.at(T0 + 8, k3, acquire("", 1, 1)), "the refusal replaced nothing");
    // A record answers until its expiry (now < expiresAt), then the key runs anew; expired
    // records stay stored until their whole generation has expired, then go in one drop.
    long retention = StateOptions.defaults().idempotencyRetentionMillis();
    assertEquals(3, statusAnswer().idempotencyRecords());
    assertEquals(first, d.at(T0 + retention - 1, k1, acquire("a", 10, 1)), "1 ms before expiry");
    Result fresh = d.at(T0 + retention, k1, new Tick(0));
    assertEquals(new Result.Ticked(0), fresh, "k1 expired at T0 + retention, so its new command ran");
    assertEquals(4, statusAnswer().idempotencyRecords(), "three expired and k1's new one");
    // Generations lie on the retention grid: k1, k2, k3's old records (expiring at 70 s) are in
    // [60 s, 120 s), k1's new one (130 s) in [120 s, 180 s). The first goes when now reaches
    // its last millisecond.
    assertEquals(60_000, retention, "the grid below assumes the default retention");
    d.at(119_998, new Tick(0));
    assertEquals(4, statusAnswer().idempotencyRecords(), "one ms of the first generation left");
    d.at(119_999, new Tick(0));
    assertEquals(1, statusAnswer().idempotencyRecords(), "the first generation dropped whole");
    assertEquals(fresh, d.at(119_999, k1, new Tick(0)),
        "k1's new record answers, from the next generation");
  }

  /**
   * Goal: inside one batch a duplicate gets the first proposal's result, also when the key's
   * old record expired at this very entry's time (the new record is pending, the old one still
   * stored); a second Tick in the batch goes on where the first stopped; a later entry reads
   * the record back from RocksDB.
   */
  @Test
  void duplicateInsideOneBatchGetsTheFirstResult() {
    long retention = StateOptions.defaults().idempotencyRetentionMillis();
    RequestKey k1 = new RequestKey(9, 9, 1);
    RequestKey k2 = new RequestKey(9, 9, 2);
    grant(T0, "a", 10, 1);
    assertInstanceOf(Result.LeaseGranted.class, d.at(T0, k1, acquire("a", 10, 1)));
    assertInstanceOf(Result.LeaseGranted.class, d.at(T0 + 1, k2, acquire("b", 10, 1)));
    assertEquals(3, status().leases());
    assertEquals(2, statusAnswer().idempotencyRecords());
    // Due by T0 + 1 + retention: the three leases' countedUntil (T0 + 1100, T0 + 1100,
    // T0 + 1101); k1's and k2's records expire at T0 + retention and T0 + 1 + retention.
    List<Result> results = d.batch(Batch.of(T0 + 1 + retention, List.of(
        new Proposal(RequestKey.NONE, new Tick(4)),
        new Proposal(k1, acquire("c", 20, 2)),
        new Proposal(k1, acquire("c", 20, 2)),
        new Proposal(RequestKey.NONE, new Tick(1)),
        new Proposal(k2, acquire("e", 40, 4)),
        new Proposal(k2, acquire("e", 40, 4)))));
    assertEquals(new Result.Ticked(3), results.get(0), "three leases (records are not Tick's)");
    Result.LeaseGranted c = assertInstanceOf(Result.LeaseGranted.class, results.get(1));
    assertEquals("c", c.lease().holder(), "k1 was forgotten, so its new command ran");
    assertEquals(c, results.get(2), "the duplicate in the batch gets the first result");
    assertEquals(new Result.Ticked(0), results.get(3), "nothing left after the first Tick's");
    Result.LeaseGranted e = assertInstanceOf(Result.LeaseGranted.class, results.get(4));
    assertEquals("e", e.lease().holder());
    assertEquals(e, results.get(5));
    assertEquals(2, status().leases());
    assertEquals(4, statusAnswer().idempotencyRecords(), "two expired, two new");
    assertEquals(c, d.at(T0 + 2 + retention, k1, acquire("c", 20, 2)), "read back from RocksDB");
    assertEquals(2, status().leases());
  }

  /**
   * Goal: a renewal withdraws the lease's old expiry record at once, so no Tick pops a stale
   * record; a returned lease takes its record with it.
   */
  @Test
  void renewalAndReturnWithdrawTheOldIndexRecord() {
    Result.LeaseGranted a = grant(T0, "a", 10, 1);
    assertEquals(T0 + 1100, state.nextDueMillis());
    Result.LeaseRenewed renewed = assertInstanceOf(Result.LeaseRenewed.class,
        d.at(T0 + 500, renew(a.lease().leaseId(), a.lease().version(), 10, 1)));
    assertEquals(T0 + 1600, state.nextDueMillis(), "only the new end is indexed");
    assertEquals(new Result.Ticked(0), d.at(T0 + 1100, new Tick(10)), "nothing due at the old end");
    assertEquals(1, status().leases());
    d.at(T0 + 1200, new ReturnLease(a.lease().leaseId(), renewed.lease().version(), 0));
    assertEquals(Long.MAX_VALUE, state.nextDueMillis(), "the returned lease left no record");
    state.verify();
  }

  /** Goal: bad values are refused with INVALID_ARGUMENT naming the value. */
  @Test
  void validationErrors() {
    Result.Rejected r = rejected(d.at(T0, setLimit("t", "r", -1, 10, 1000, 100)), Outcome.INVALID_ARGUMENT);
    assertTrue(r.message().contains("-1"), r.message());
    r = rejected(d.at(T0, setLimit("t", "r", 1, 10, 99, 0)), Outcome.INVALID_ARGUMENT);
    assertTrue(r.message().contains("99"), r.message());
    rejected(d.at(T0, setLimit("t", "r", 1, 10, 3_600_001, 0)), Outcome.INVALID_ARGUMENT);
    rejected(d.at(T0, setLimit("t", "r", 1, 10, 1000, 1001)), Outcome.INVALID_ARGUMENT);
    rejected(d.at(T0, setLimit("t", "x".repeat(129), 1, 10, 1000, 0)), Outcome.INVALID_ARGUMENT);
    rejected(d.at(T0, acquire("a", -5, 0)), Outcome.INVALID_ARGUMENT);
    rejected(d.at(T0, renew(1, 1, 0, -1)), Outcome.INVALID_ARGUMENT);
    rejected(d.at(T0, giveBack(1, 1, -1)), Outcome.INVALID_ARGUMENT);
    rejected(d.at(T0, new Tick(-1)), Outcome.INVALID_ARGUMENT);
    assertEquals(1, status().limit().version(), "nothing changed");
  }

  /** Goal: a conditional SetLimit applies only at the expected version. */
  @Test
  void staleConfig() {
    long v = status().limit().version();
    SetLimit stale = new SetLimit(new Limit("t", "r", 5, 5, Mode.HARD, 1000, 0, 0, Policy.FREE_CAPACITY, v + 100));
    Result.Rejected r = rejected(d.at(T0, stale), Outcome.STALE_CONFIG);
    assertEquals(v, r.currentVersion());
    SetLimit ok = new SetLimit(new Limit("t", "r", 5, 5, Mode.HARD, 1000, 0, 0, Policy.FREE_CAPACITY, v));
    Result.LimitSet set = assertInstanceOf(Result.LimitSet.class, d.at(T0, ok));
    assertTrue(set.limit().version() > v);
  }

  /** Goal: time comes only from batches and never runs backwards; indexes apply once. */
  @Test
  void timeAndIndexMonotone() {
    d.at(T0 + 500, new Tick(0));
    d.at(T0 - 5000, new Tick(0));
    assertEquals(T0 + 500, state.nowMillis());
    Result.LeaseGranted a = grant(T0 - 9000, "a", 1, 1);
    assertEquals(T0 + 500, a.lease().grantedAtMillis());
    long applied = state.appliedIndex();
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> state.apply(1, applied, Fixtures.batch(T0, new Tick(1))));
    assertTrue(e.getMessage().contains(Long.toString(applied)), e.getMessage());
    assertEquals(applied, state.appliedIndex());
    d.at(T0, new Tick(0)); // still usable
  }
}
