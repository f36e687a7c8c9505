package dev.ration.server.consensus;

import java.util.List;

/**
 * One node's view of the cluster, for `ration cluster status`, health and metrics.
 *
 * @param peers every member of the replicated Raft configuration as this node knows it, voters
 *     and listeners (not the configuration file's list, which may be out of date)
 * @param listeners the ids among {@code peers} that are non-voting listeners (catching up)
 * @param configMismatch "" when the configuration file's {@code cluster.peers} agrees with the
 *     replicated configuration, else how they differ (the replicated one is used)
 * @param upToDate on the leader, the voters it counts as up to date for a membership change
 *     (itself, and each voter that answered within an election timeout and is within the
 *     caught-up gap of the commit index); empty on other nodes
 */
public record NodeStatus(
    String nodeId,
    String role,
    long term,
    long commitIndex,
    long appliedIndex,
    String leaderId,
    String leaderClientAddress,
    long ledgerNowMillis,
    long epoch,
    int queueDepth,
    List<Peer> peers,
    List<String> listeners,
    String configMismatch,
    List<String> upToDate) {

  /**
   * The {@code role} of a node the replicated configuration no longer lists (removed by
   * {@code ration cluster remove} and still running): it serves nothing and should be stopped.
   */
  public static final String REMOVED = "REMOVED";

  public NodeStatus {
    peers = List.copyOf(peers);
    listeners = List.copyOf(listeners);
    upToDate = List.copyOf(upToDate);
  }

  /** A status without listeners or a configuration mismatch. */
  public NodeStatus(String nodeId, String role, long term, long commitIndex, long appliedIndex,
      String leaderId, String leaderClientAddress, long ledgerNowMillis, long epoch,
      int queueDepth, List<Peer> peers) {
    this(nodeId, role, term, commitIndex, appliedIndex, leaderId, leaderClientAddress,
        ledgerNowMillis, epoch, queueDepth, peers, List.of(), "", List.of());
  }
}
