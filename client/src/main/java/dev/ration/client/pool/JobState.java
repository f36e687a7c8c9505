package dev.ration.client.pool;

/**
 * Where an accepted job is. SUBMITTED → QUEUED → RUNNING → SUCCEEDED | FAILED | CANCELLED; a job
 * that waits for a retry is QUEUED again (it holds no worker while it backs off). Every accepted
 * job reaches exactly one terminal state.
 */
public enum JobState {
  SUBMITTED, QUEUED, RUNNING, SUCCEEDED, FAILED, CANCELLED;

  public boolean isTerminal() {
    return this == SUCCEEDED || this == FAILED || this == CANCELLED;
  }
}
