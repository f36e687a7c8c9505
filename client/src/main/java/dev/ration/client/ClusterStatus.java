package dev.ration.client;

import dev.ration.client.time.LedgerTime;
import java.util.List;

/**
 * What one node says about itself and the cluster.
 *
 * @param serverId the answering node
 * @param role its Raft role (LEADER, FOLLOWER, CANDIDATE...)
 * @param term its current Raft term
 * @param commitIndex the highest log index it knows committed
 * @param appliedIndex the highest log index it has applied
 * @param leaderId the leader it knows of, empty if none
 * @param leaderAddress the leader's client address, empty if unknown
 * @param ledgerNow the node's ledger time
 * @param epoch the ledger's epoch (changes when the ledger is restored)
 * @param peers the configured members
 */
public record ClusterStatus(String serverId, String role, long term, long commitIndex,
    long appliedIndex, String leaderId, String leaderAddress, LedgerTime ledgerNow, long epoch,
    List<Peer> peers) {
  /**
   * A status; {@code peers} is copied.
   *
   * @param serverId the answering node
   * @param role its Raft role
   * @param term its term
   * @param commitIndex its commit index
   * @param appliedIndex its applied index
   * @param leaderId the leader it knows of
   * @param leaderAddress the leader's client address
   * @param ledgerNow its ledger time
   * @param epoch the ledger's epoch
   * @param peers the members
   */
  public ClusterStatus {
    peers = List.copyOf(peers);
  }

  /**
   * A member of the cluster.
   *
   * @param id the member's id
   * @param raftAddress its Raft (peer) address
   * @param clientAddress its client endpoint
   * @param role its role as the answering node sees it
   */
  public record Peer(String id, String raftAddress, String clientAddress, String role) {}
}
