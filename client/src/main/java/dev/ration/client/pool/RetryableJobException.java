package dev.ration.client.pool;

/** Thrown by a job to say "this attempt failed, a later one may succeed". */
public class RetryableJobException extends Exception {
  public RetryableJobException(String message) {
    super(message);
  }

  public RetryableJobException(String message, Throwable cause) {
    super(message, cause);
  }
}
