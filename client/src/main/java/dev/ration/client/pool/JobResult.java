package dev.ration.client.pool;

import java.time.Instant;
import java.util.Optional;

/**
 * How an accepted job ended: its terminal state, the value (SUCCEEDED) or the last failure
 * (FAILED, and CANCELLED when the job threw while stopping), the attempts made, when it ended,
 * and whether it ran past the end of its slot lease (an overrun).
 */
public record JobResult<T>(long jobId, JobState state, Optional<T> value, Optional<Throwable> failure,
                           int attempts, Instant finishedAt, boolean overrun) {
  /**
   * A result, validated.
   *
   * @param jobId the job
   * @param state its terminal state
   * @param value its value, when it succeeded
   * @param failure its last failure, when it failed
   * @param attempts how many attempts ran
   * @param finishedAt when it ended, on the pool's clock
   * @param overrun whether it ran past its deadline
   * @throws IllegalArgumentException if {@code state} is not terminal
   */
  public JobResult {
    if (!state.isTerminal()) {
      throw new IllegalArgumentException("job " + jobId + " result with non-terminal state " + state);
    }
  }
}
