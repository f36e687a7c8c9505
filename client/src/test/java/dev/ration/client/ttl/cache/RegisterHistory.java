package dev.ration.client.ttl.cache;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A history of reads and writes of one register (a cache key), and a Wing and Gong checker for
 * it: is there an order of the operations, each taking effect at one instant between its
 * invocation and its completion, in which every read returns the latest write (or the initial
 * value)? Invocations and completions are stamped from one counter, so "completed before invoked"
 * is the real-time order across threads. {@code null} is the absent value (the initial value, and
 * what a delete writes).
 *
 * <p>The search tries, at each point, every operation not yet placed that no unplaced operation
 * precedes in real time, and remembers the (placed set, value) states it has already failed
 * from; the placed set is a bit mask, so a history holds at most {@value #MAX_OPERATIONS}
 * operations.
 */
final class RegisterHistory {
  static final int MAX_OPERATIONS = 64;

  /** One completed operation; {@code value} is what a write wrote or a read returned. */
  record Operation(int thread, boolean write, String value, long invokedAt, long completedAt) {
    @Override
    public String toString() {
      return String.format("t%d %s %s [%d, %d]", thread, write ? "write" : "read", value, invokedAt, completedAt);
    }
  }

  private final AtomicLong ticks = new AtomicLong();
  private final List<Operation> operations = new ArrayList<>();

  long invoke() {
    return ticks.incrementAndGet();
  }

  /** Records an operation invoked at {@code invokedAt} that completes now. */
  void complete(int thread, boolean write, String value, long invokedAt) {
    long completedAt = ticks.incrementAndGet();
    synchronized (operations) {
      operations.add(new Operation(thread, write, value, invokedAt, completedAt));
    }
  }

  List<Operation> operations() {
    synchronized (operations) {
      return List.copyOf(operations);
    }
  }

  /** Whether {@code history} is linearizable for a register that starts absent. */
  static boolean linearizable(List<Operation> history) {
    if (history.size() > MAX_OPERATIONS) {
      throw new IllegalArgumentException("history of " + history.size() + " operations, at most "
          + MAX_OPERATIONS + " checked");
    }
    return search(history, 0L, null, new HashSet<>());
  }

  private record State(long placed, String value) {}

  private static boolean search(List<Operation> ops, long placed, String value, Set<State> failed) {
    int n = ops.size();
    if (placed == (n == 64 ? -1L : (1L << n) - 1)) {
      return true;
    }
    State state = new State(placed, value);
    if (failed.contains(state)) {
      return false;
    }
    // An operation can go next only if no unplaced operation completed before it was invoked.
    long earliestCompletion = Long.MAX_VALUE;
    for (int i = 0; i < n; i++) {
      if ((placed & (1L << i)) == 0) {
        earliestCompletion = Math.min(earliestCompletion, ops.get(i).completedAt());
      }
    }
    for (int i = 0; i < n; i++) {
      Operation op = ops.get(i);
      if ((placed & (1L << i)) != 0 || op.invokedAt() > earliestCompletion) {
        continue;
      }
      if (op.write()) {
        if (search(ops, placed | (1L << i), op.value(), failed)) {
          return true;
        }
      } else if (Objects.equals(op.value(), value) && search(ops, placed | (1L << i), value, failed)) {
        return true;
      }
    }
    failed.add(state);
    return false;
  }
}
