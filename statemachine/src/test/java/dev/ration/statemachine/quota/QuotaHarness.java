package dev.ration.statemachine.quota;

import dev.ration.wire.quota.QuotaSpec;
import dev.ration.statemachine.query.LevelUsage;

import dev.ration.wire.quota.UsageEvent;

import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;

import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.QuotaCommand.Reserve;
import dev.ration.statemachine.command.QuotaCommand.SetQuota;
import dev.ration.statemachine.command.Tick;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.query.QuotaAnswer;
import dev.ration.statemachine.query.QuotaQuery;
import dev.ration.statemachine.result.QuotaResult;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.store.RocksCoordinatorState;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Drives a real {@link RocksCoordinatorState} (real RocksDB, the replica's idempotency, Tick and
 * expiry index) with quota commands at explicit ledger times, verifying every invariant after
 * each entry. Each call without a key gets a fresh request key. Thread: the test's.
 */
final class QuotaHarness implements AutoCloseable {
  private final Path dir;
  private RocksCoordinatorState state;
  private long index;
  private long sequence = 1;
  long nowMillis = 1_000;

  QuotaHarness(Path dir) {
    this.dir = dir;
    this.state = RocksCoordinatorState.open(dir, StateOptions.defaults());
    this.index = state.appliedIndex() + 1;
  }

  RequestKey freshKey() {
    return new RequestKey(7, 7, sequence++);
  }

  QuotaResult apply(Command command) {
    return apply(freshKey(), command);
  }

  QuotaResult apply(RequestKey key, Command command) {
    return batch(List.of(new Proposal(key, command))).get(0);
  }

  /** One entry holding several proposals (the group commit of concurrent requests). */
  List<QuotaResult> batch(List<Proposal> proposals) {
    List<Result> results = state.apply(1, index++, Batch.of(nowMillis, proposals));
    state.verify();
    List<QuotaResult> out = new ArrayList<>();
    for (Result r : results) {
      out.add(((Result.Quota) r).result());
    }
    return out;
  }

  /** Leader-proposed housekeeping at the current time; returns the number freed. */
  int tick() {
    Result r = state.apply(1, index++, Batch.of(nowMillis,
        List.of(new Proposal(RequestKey.NONE, new Tick(10_000))))).get(0);
    state.verify();
    return ((Result.Ticked) r).freed();
  }

  QuotaAnswer query(QuotaQuery q) {
    QueryResult r = state.query(new Query.Quota(q), nowMillis);
    return ((QueryResult.Quota) r).answer();
  }

  List<UsageEvent> log() {
    return ((QuotaAnswer.UsageBatch) query(new QuotaQuery.ReadUsage("", 1, 100_000))).events();
  }

  LevelUsage usage(String scope, String resource) {
    return ((QuotaAnswer.QuotaFound) query(new QuotaQuery.GetQuota(scope, resource))).quota()
        .orElseThrow().usage();
  }

  byte[] canonical() {
    return state.canonicalState();
  }

  void reopen() {
    reopen(StateOptions.defaults());
  }

  /** Restarts on the same data with other bounds (a cluster restarted with a new configuration). */
  void reopen(StateOptions options) {
    state.close();
    state = RocksCoordinatorState.open(dir, options);
    index = state.appliedIndex() + 1;
  }

  RocksCoordinatorState state() {
    return state;
  }

  @Override
  public void close() {
    state.close();
  }

  // ------------------------------------------------------------ builders

  static SetQuota concurrent(String scope, String resource, long limit) {
    return new SetQuota(new QuotaSpec(scope, resource, QuotaKind.CONCURRENT, Window.NONE, limit, "jobs", 0,
        Overage.REJECT, 0, 0, 0, "test", 0, "setup"));
  }

  static SetQuota rate(String scope, String resource, Window window, long limit, long soft) {
    return new SetQuota(new QuotaSpec(scope, resource, QuotaKind.RATE, window, limit, "requests", soft,
        Overage.REJECT, 0, 0, 0, "test", 0, "setup"));
  }

  static Reserve reserve(String scope, String resource, long amount) {
    return new Reserve(scope, List.of(new Reserve.Item(resource, amount)), 0, 60_000);
  }

  static QuotaResult.Reserved reserved(QuotaResult r) {
    if (r instanceof QuotaResult.Reserved ok) {
      return ok;
    }
    throw new AssertionError("expected Reserved, got " + r);
  }

  static QuotaResult.QuotaRejected rejected(QuotaResult r) {
    if (r instanceof QuotaResult.QuotaRejected no) {
      return no;
    }
    throw new AssertionError("expected QuotaRejected, got " + r);
  }
}
