package dev.ration.client.pool;

/**
 * Tells a retryable failure (the downstream may answer next time: a timeout, an overload, a
 * connection reset) from a permanent one (bad input, a refusal that will not change). The
 * default retries only {@link RetryableJobException}: a job opts in, so an unexpected bug is
 * never retried into a storm.
 */
@FunctionalInterface
public interface FailureClassifier {
  /**
   * Whether an attempt that threw {@code failure} is worth another.
   *
   * @param failure what the attempt threw
   * @return true to retry (within the attempts left)
   */
  boolean isRetryable(Throwable failure);

  /** Retries only a {@link RetryableJobException}. */
  FailureClassifier DEFAULT = failure -> failure instanceof RetryableJobException;
}
