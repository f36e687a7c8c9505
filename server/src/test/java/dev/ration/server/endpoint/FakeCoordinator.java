package dev.ration.server.endpoint;

import dev.ration.server.consensus.CoordinatorException;
import dev.ration.server.consensus.TtlWatchAnswer;
import dev.ration.server.consensus.Coordinator;
import dev.ration.server.consensus.NodeStatus;
import dev.ration.server.consensus.Peer;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A coordinator that records what the endpoint asks and lets the test decide each answer
 * (complete, fail, or never). Isolates the endpoint from consensus. Thread-safe.
 */
public final class FakeCoordinator implements Coordinator {
  public record Submitted(RequestKey key, Command command, long deadlineNanos, CompletableFuture<Result> answer) {}

  public record Asked(Query query, boolean stale, long deadlineNanos, CompletableFuture<QueryResult> answer) {}

  public final List<Submitted> submitted = new CopyOnWriteArrayList<>();
  public final List<Asked> asked = new CopyOnWriteArrayList<>();
  /** One permit per query asked, so a test can wait for a query without polling. */
  private final Semaphore queries = new Semaphore(0);
  public volatile NodeStatus status = leaderStatus();

  public static NodeStatus leaderStatus() {
    return status("LEADER", "n1", "127.0.0.1:7001", 7, 120, 118);
  }

  public static NodeStatus status(
      String role, String leaderId, String leaderAddress, long term, long commit, long applied) {
    return new NodeStatus(
        "n1",
        role,
        term,
        commit,
        applied,
        leaderId,
        leaderAddress,
        1_000_000,
        3,
        0,
        List.of(
            new Peer("n1", "127.0.0.1:6001", "127.0.0.1:7001", "127.0.0.1:8001"),
            new Peer("n2", "127.0.0.1:6002", "127.0.0.1:7002", "127.0.0.1:8002"),
            new Peer("n3", "127.0.0.1:6003", "127.0.0.1:7003", "127.0.0.1:8003")));
  }

  @Override
  public CompletableFuture<Result> submit(RequestKey key, Command command, long deadlineNanos) {
    CompletableFuture<Result> f = new CompletableFuture<>();
    submitted.add(new Submitted(key, command, deadlineNanos, f));
    return f;
  }

  @Override
  public CompletableFuture<QueryResult> query(Query query, boolean stale, long deadlineNanos) {
    CompletableFuture<QueryResult> f = new CompletableFuture<>();
    asked.add(new Asked(query, stale, deadlineNanos, f));
    queries.release();
    return f;
  }

  /** Waits up to {@code timeout} for the next query asked; returns whether one was. */
  public boolean awaitQuery(Duration timeout) throws InterruptedException {
    return queries.tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  @Override
  public NodeStatus status() {
    return status;
  }

  /** Watches are answered by {@link #watchAnswer}, failed UNAVAILABLE if it is not set. */
  public volatile java.util.function.Supplier<CompletableFuture<TtlWatchAnswer>> watchAnswer;

  @Override
  public CompletableFuture<TtlWatchAnswer> watchTtl(String namespace, long fromIndex,
      long waitMillis, java.util.List<String> keys, boolean confirm, long deadlineNanos) {
    java.util.function.Supplier<CompletableFuture<TtlWatchAnswer>> a = watchAnswer;
    return a != null ? a.get() : CompletableFuture.failedFuture(new CoordinatorException(
        CoordinatorException.Reason.UNAVAILABLE, "no watch answer set", "", 0, false));
  }
}
