package dev.ration.statemachine.lease;

import static dev.ration.statemachine.Fixtures.acquire;
import static dev.ration.statemachine.Fixtures.setLimit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.Fixtures.Driver;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.LeaseCommand.RenewLease;
import dev.ration.statemachine.command.LeaseCommand.RenewLeases;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.store.RocksCoordinatorState;
import dev.ration.wire.Outcome;
import dev.ration.wire.lease.LeaseView;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Batched renewals on real RocksDB: each renewal judged on its own, one key for the batch. */
class RenewLeasesTest {
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

  private LeaseView grant(String holder) {
    return assertInstanceOf(Result.LeaseGranted.class, d.at(T0, acquire(holder, 10, 1))).lease();
  }

  private static RenewLease renewal(LeaseView lease, long presented) {
    return new RenewLease(lease.leaseId(), presented, 10, 1, 5, 0, 0);
  }

  private List<LeaseView> leases() {
    return ((QueryResult.LeaseList) state.query(new Query.ListLeases("", ""), 0)).leases();
  }

  /** Goal: a stale version or an unknown lease fails only its own renewal; the rest renew. */
  @Test
  void eachRenewalIsJudgedOnItsOwn() {
    LeaseView a = grant("a");
    LeaseView b = grant("b");
    LeaseView c = grant("c");
    Result r = d.at(T0 + 500, new RenewLeases(List.of(
        renewal(a, a.version()),
        renewal(b, b.version() + 7),
        new RenewLease(999, 1, 1, 1, 0, 0, 0),
        renewal(c, c.version()))));
    List<Result.Renewal> answers = assertInstanceOf(Result.LeasesRenewed.class, r).renewals();
    assertEquals(4, answers.size());
    assertEquals(Outcome.SUCCESS, answers.get(0).outcome());
    assertEquals(T0 + 1500, answers.get(0).lease().expiresAtMillis(), "renewed from now");
    assertEquals(Outcome.VERSION_MISMATCH, answers.get(1).outcome(), answers.get(1).message());
    assertNull(answers.get(1).lease());
    assertEquals(Outcome.LEASE_UNKNOWN, answers.get(2).outcome(), answers.get(2).message());
    assertEquals(Outcome.SUCCESS, answers.get(3).outcome());
    // Exactly what the same renewals proposed alone would have done to the ledger.
    List<LeaseView> after = leases();
    assertEquals(T0 + 1500, after.stream().filter(l -> l.leaseId() == a.leaseId()).findFirst()
        .orElseThrow().expiresAtMillis());
    assertEquals(T0 + 1000, after.stream().filter(l -> l.leaseId() == b.leaseId()).findFirst()
        .orElseThrow().expiresAtMillis(), "the stale renewal changed nothing");
  }

  /** Goal: a batch answers exactly what its renewals proposed alone, in order, would answer. */
  @Test
  void aBatchAnswersAsTheSameRenewalsInARow() {
    LeaseView a = grant("a");
    LeaseView b = grant("b");
    List<RenewLease> renewals = List.of(renewal(a, a.version()), renewal(a, a.version()),
        renewal(b, b.version() + 1), renewal(b, b.version()));
    List<Result.Renewal> batched = assertInstanceOf(Result.LeasesRenewed.class,
        d.at(T0 + 100, new RenewLeases(renewals))).renewals();
    List<LeaseView> afterBatch = leases();

    try (RocksCoordinatorState alone =
        RocksCoordinatorState.open(dir.resolve("alone"), StateOptions.defaults())) {
      Driver one = new Driver(alone);
      one.at(T0, setLimit("t", "r", 100, 10, 1000, 100));
      one.at(T0, acquire("a", 10, 1));
      one.at(T0, acquire("b", 10, 1));
      List<Result.Renewal> single = new ArrayList<>();
      for (RenewLease r : renewals) {
        single.add(Result.Renewal.of(one.at(T0 + 100, r)));
      }
      assertEquals(single, batched);
      assertEquals(((QueryResult.LeaseList) alone.query(new Query.ListLeases("", ""), 0)).leases(),
          afterBatch);
    }
  }

  /** Goal: a resent batch (same request key) gets every answer of the first and changes nothing. */
  @Test
  void aResentBatchIsAnsweredFromTheFirst() {
    LeaseView a = grant("a");
    LeaseView b = grant("b");
    RequestKey key = new RequestKey(3, 4, 9);
    RenewLeases batch = new RenewLeases(List.of(renewal(a, a.version()), renewal(b, b.version())));
    Result first = d.at(T0 + 200, key, batch);
    List<LeaseView> after = leases();
    Result again = d.at(T0 + 300, key, batch);
    assertEquals(first, again);
    assertEquals(after, leases(), "the resend renewed nothing again");
    Result.Rejected other = assertInstanceOf(Result.Rejected.class,
        d.at(T0 + 300, key, new RenewLeases(List.of(renewal(a, a.version())))));
    assertEquals(Outcome.INVALID_ARGUMENT, other.outcome());
    assertTrue(other.message().contains("RENEW_LEASES"), other.message());
  }

  /** Goal: an empty or oversized batch is refused whole, definitely. */
  @Test
  void batchesOutsideTheBoundAreRefused() {
    LeaseView a = grant("a");
    Result.Rejected empty = assertInstanceOf(Result.Rejected.class,
        d.at(T0 + 1, new RenewLeases(List.of())));
    assertEquals(Outcome.INVALID_ARGUMENT, empty.outcome());
    List<RenewLease> many = new ArrayList<>(Collections.nCopies(RenewLeases.MAX_RENEWALS + 1,
        renewal(a, a.version())));
    Result.Rejected big = assertInstanceOf(Result.Rejected.class,
        d.at(T0 + 2, new RenewLeases(many)));
    assertEquals(Outcome.INVALID_ARGUMENT, big.outcome());
    assertTrue(big.message().contains("4097 renewals"), big.message());
  }
}
