package dev.ration.server.consensus;

/**
 * Group-commit counters of one node, for metrics: Raft entries and commands proposed since start,
 * commands waiting now, entries outstanding now, commands refused with OVERLOADED and commands
 * dropped because their deadline passed before proposal; and where a command's time goes on the
 * leader: the total time commands waited in the queue before their entry was proposed, and the
 * total time answered entries took from proposal to answer (Raft replication, commit, apply);
 * and how many entries were proposed on the direct path (a lone command with nothing in flight,
 * proposed by the submitting thread without queueing); and how many queued commands their callers
 * withdrew before proposal (a CANCEL frame, or the connection closed).
 */
public record GroupCommitStats(
    long entriesProposed,
    long commandsProposed,
    int queueDepth,
    int entriesInFlight,
    long rejectedOverloaded,
    long droppedExpired,
    long queueWaitNanos,
    long entriesAnswered,
    long entryNanos,
    long entriesDirect,
    long withdrawn) {}
