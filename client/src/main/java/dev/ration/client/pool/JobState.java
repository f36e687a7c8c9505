package dev.ration.client.pool;

/**
 * Where an accepted job is. SUBMITTED → QUEUED → RUNNING → SUCCEEDED | FAILED | CANCELLED; a job
 * that waits for a retry is QUEUED again (it holds no worker while it backs off). Every accepted
 * job reaches exactly one terminal state.
 */
public enum JobState {
  /** Accepted, not yet queued. */
  SUBMITTED,
  /** Waiting for a worker (or backing off before a retry). */
  QUEUED,
  /** An attempt is running. */
  RUNNING,
  /** Ended with a value. */
  SUCCEEDED,
  /** Ended with a failure, after its last attempt. */
  FAILED,
  /** Ended by a cancellation. */
  CANCELLED;

  /**
   * Whether a job in this state has ended.
   *
   * @return true for SUCCEEDED, FAILED and CANCELLED
   */
  public boolean isTerminal() {
    return this == SUCCEEDED || this == FAILED || this == CANCELLED;
  }
}
