package dev.ration.client.pool;

import java.time.Instant;

/**
 * What a job is told about the attempt it runs: its id, the attempt number (1-based) out of at
 * most {@code maxAttempts}, the job's deadline, and the token that says when to stop.
 */
public record Attempt(long jobId, int number, int maxAttempts, Instant deadline, CancellationToken token) {
  /**
   * True when this attempt is the last one the pool will make.
   *
   * @return whether no retry follows this attempt
   */
  public boolean isLast() {
    return number >= maxAttempts;
  }
}
