package dev.ration.statemachine.command;

import java.util.List;

/**
 * One replicated log entry: the leader's group-commit of several proposals, stamped once with
 * log time. {@code timeMillis} is log time (docs/ARCHITECTURE.md, "Time"), fixed by the leader; the state machine's
 * clock becomes {@code max(previous now, timeMillis)} before any proposal is applied.
 * Each proposal keeps its own result and idempotency; one rejected proposal never affects the others.
 */
public record Batch(int formatVersion, long timeMillis, List<Proposal> proposals) {
  public static final int FORMAT_VERSION = 1;

  public Batch {
    proposals = List.copyOf(proposals);
  }

  public static Batch of(long timeMillis, List<Proposal> proposals) {
    return new Batch(FORMAT_VERSION, timeMillis, proposals);
  }
}
