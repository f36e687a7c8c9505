package dev.ration.server.consensus;

import dev.ration.statemachine.StateOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Everything consensus needs, validated by the config loader. Raft timeouts are for a JVM on a
 * LAN (1-2 s), not Ratis's 150-300 ms test defaults.
 *
 * @param groupId a stable UUID string naming the Raft group (the same on every node)
 * @param snapshotThresholdEntries take a snapshot after this many applied entries
 * @param purgePreservedEntries log entries kept behind a snapshot for briefly lagging followers
 * @param batchMaxCommands, batchMaxBytes, batchLinger group-commit bounds
 * @param maxEntriesInFlight Raft entries the leader keeps in flight before batching harder
 * @param queueCapacity commands waiting for group commit; beyond it OVERLOADED
 * @param tickInterval how often the leader proposes a Tick when something is due
 */
public record ConsensusOptions(
    String nodeId,
    String groupId,
    List<Peer> peers,
    Path dataDir,
    Duration electionTimeoutMin,
    Duration electionTimeoutMax,
    Duration requestTimeout,
    long snapshotThresholdEntries,
    long purgePreservedEntries,
    long segmentSizeBytes,
    int batchMaxCommands,
    int batchMaxBytes,
    Duration batchLinger,
    int maxEntriesInFlight,
    int queueCapacity,
    Duration tickInterval,
    int tickMaxItems,
    StateOptions stateOptions) {

  public ConsensusOptions {
    peers = List.copyOf(peers);
  }

  public Peer self() {
    return peers.stream()
        .filter(p -> p.id().equals(nodeId))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("node id " + nodeId + " is not among peers " + peers));
  }
}
