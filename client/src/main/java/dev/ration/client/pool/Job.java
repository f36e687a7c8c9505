package dev.ration.client.pool;

/**
 * Work the pool runs, once per attempt. Return the value to succeed; throw to fail. Whether a
 * failure is retried is decided by the pool's {@link FailureClassifier}, never by the job or a
 * layer under it: {@code attempt} says which attempt this is and until when it may run, so the
 * job's own clients should not retry on their own. Long or blocking work checks
 * {@code attempt.token()} and passes it to its I/O.
 */
@FunctionalInterface
public interface Job<T> {
  /**
   * Runs one attempt.
   *
   * @param attempt which attempt this is, with its cancellation token
   * @return the job's value
   * @throws Exception a failure, retried when the pool's classifier says so
   */
  T run(Attempt attempt) throws Exception;
}
