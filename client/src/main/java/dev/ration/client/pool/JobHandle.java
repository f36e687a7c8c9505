package dev.ration.client.pool;

import java.util.concurrent.CompletableFuture;

/**
 * An accepted job: its id, its current state, its outcome as a future that always completes
 * (with a {@link JobResult}, never exceptionally), and a way to cancel it.
 */
public interface JobHandle<T> {
  /**
   * The job's id in its pool.
   *
   * @return the id
   */
  long id();

  /**
   * Where the job is now.
   *
   * @return its state
   */
  JobState state();

  /**
   * The job's result, once it reaches a terminal state.
   *
   * @return completes with the result
   */
  CompletableFuture<JobResult<T>> result();

  /**
   * Cancels the job: a queued job is dropped and never runs (CANCELLED at once); a running job's
   * token is cancelled and the job ends as it chooses (CANCELLED if it then fails or throws).
   * Returns false if the job had already ended.
   *
   * @return whether the job was not finished yet (it is cancelled now)
   */
  boolean cancel();
}
