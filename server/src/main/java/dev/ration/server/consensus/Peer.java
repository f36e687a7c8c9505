package dev.ration.server.consensus;

/** A cluster member: its Raft (gRPC) address, its client (Netty) address, its admin HTTP address. */
public record Peer(String id, String raftAddress, String clientAddress, String adminAddress) {}
