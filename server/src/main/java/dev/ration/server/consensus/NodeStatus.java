package dev.ration.server.consensus;

import java.util.List;

/** One node's view of the cluster, for `ration cluster status`, health and metrics. */
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
    List<Peer> peers) {}
