package dev.ration.server.consensus;

import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The seam between the client endpoint and consensus: submit a command for group commit, ask a
 * linearizable (or, for monitoring, stale) question, see this node's view of the cluster.
 *
 * <p>Futures complete exceptionally with a {@link CoordinatorException} whose
 * {@link CoordinatorException.Reason} the endpoint maps to a wire error code.
 * Thread-safe; never blocks the caller.
 */
public interface Coordinator {

  /**
   * Propose {@code command} under {@code key}; the result is the replicated one (a retry with the
   * same key gets the first answer). {@code deadlineNanos} is on {@link System#nanoTime()}'s
   * scale: a command still queued at its deadline is dropped before it is proposed.
   */
  CompletableFuture<Result> submit(RequestKey key, Command command, long deadlineNanos);

  /** Linearizable read through Ratis ReadIndex, or this node's state if {@code stale}. */
  CompletableFuture<QueryResult> query(Query query, boolean stale, long deadlineNanos);

  /** This node's view: role, term, indexes, leader. Never blocks. */
  NodeStatus status();

  /**
   * A TTL watch poll: the namespace's changes after log index {@code fromIndex} (−1: from now),
   * waiting up to {@code waitMillis} for one when there is none (not when {@code keys} is not
   * empty), with the live entries of {@code keys} as of the answer's index. Confirmed by a
   * ReadIndex as {@link #query} is when {@code confirm}, when {@code keys} is not empty or when
   * there are no changes; otherwise answered as soon as the changes are applied. Fails
   * NOT_LEADER on a follower.
   */
  CompletableFuture<TtlWatchAnswer> watchTtl(String namespace, long fromIndex, long waitMillis,
      List<String> keys, boolean confirm, long deadlineNanos);
}
