package dev.ration.server.logging;

import java.util.function.LongSupplier;

/**
 * What every log line of this process says about the node: its id, and its current Raft term and
 * commit index where the node has them. One node runs per server process, so this is
 * process-wide; a process that is not a node (an admin command) leaves it empty.
 *
 * <p>The suppliers are read on every log line, from any thread: they must be lock-free reads
 * (an atomic field), never a call that can block or take a lock another thread may hold while
 * logging.
 */
public final class LogContext {
  private static volatile String nodeId = "";
  private static volatile LongSupplier term;
  private static volatile LongSupplier commitIndex;

  private LogContext() {}

  public static void node(String id) {
    nodeId = id;
  }

  /** Term and commit index suppliers of the running node; clear with {@link #raftGone()}. */
  public static void raft(LongSupplier currentTerm, LongSupplier currentCommitIndex) {
    term = currentTerm;
    commitIndex = currentCommitIndex;
  }

  public static void raftGone() {
    term = null;
    commitIndex = null;
  }

  static String nodeId() {
    return nodeId;
  }

  /** {term, commit index}, or null when no node runs (or it cannot say). */
  static long[] raftPosition() {
    LongSupplier t = term;
    LongSupplier c = commitIndex;
    if (t == null || c == null) {
      return null;
    }
    try {
      return new long[] {t.getAsLong(), c.getAsLong()};
    } catch (RuntimeException e) {
      // The node is closing: the line is still worth writing without a position.
      return null;
    }
  }
}
