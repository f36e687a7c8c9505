package dev.ration.server.consensus;

/**
 * Group-commit counters of one node, for metrics: Raft entries and commands proposed since start,
 * commands waiting now, entries outstanding now, commands refused with OVERLOADED and commands
 * dropped because their deadline passed before proposal.
 */
public record GroupCommitStats(
    long entriesProposed,
    long commandsProposed,
    int queueDepth,
    int entriesInFlight,
    long rejectedOverloaded,
    long droppedExpired) {}
