package dev.ration.server.observability;

import dev.ration.server.consensus.NodeStatus;
import dev.ration.server.consensus.Peer;
import java.util.Optional;

/**
 * When a node is ready to take client traffic: it is not shutting down, it is still a member
 * of the replicated configuration, it knows a leader, and it has applied its log to within
 * {@code maxApplyLagEntries} of the commit index (so its reads and its NOT_LEADER redirections
 * are current). A pure function of the status.
 */
public record Readiness(long maxApplyLagEntries) {
  public static final long DEFAULT_MAX_APPLY_LAG_ENTRIES = 1_000;

  public Readiness {
    if (maxApplyLagEntries < 0) {
      throw new IllegalArgumentException("maxApplyLagEntries " + maxApplyLagEntries + " < 0");
    }
  }

  /** Empty when ready, else the reason it is not, in words an operator can act on. */
  public Optional<String> notReadyBecause(NodeStatus s, boolean draining) {
    if (draining) {
      return Optional.of("shutting down");
    }
    if (NodeStatus.REMOVED.equals(s.role())) {
      return Optional.of("removed from the cluster configuration (now " + s.peers().stream()
          .map(Peer::id).toList() + "); stop this node");
    }
    if (s.leaderId() == null || s.leaderId().isEmpty()) {
      return Optional.of("no leader known (role " + s.role() + ", term " + s.term() + ")");
    }
    long lag = s.commitIndex() - s.appliedIndex();
    if (lag > maxApplyLagEntries) {
      return Optional.of(
          "applied index " + s.appliedIndex() + " lags commit index " + s.commitIndex() + " by " + lag
              + " entries, max " + maxApplyLagEntries);
    }
    return Optional.empty();
  }
}
