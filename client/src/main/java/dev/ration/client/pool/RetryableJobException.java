package dev.ration.client.pool;

/** Thrown by a job to say "this attempt failed, a later one may succeed". */
public class RetryableJobException extends Exception {
  /**
   * A failure worth another attempt.
   *
   * @param message what failed
   */
  public RetryableJobException(String message) {
    super(message);
  }

  /**
   * A failure worth another attempt.
   *
   * @param message what failed
   * @param cause why
   */
  public RetryableJobException(String message, Throwable cause) {
    super(message, cause);
  }
}
