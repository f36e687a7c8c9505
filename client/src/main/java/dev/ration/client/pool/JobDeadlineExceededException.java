package dev.ration.client.pool;

import java.time.Instant;

/** The failure of a job whose deadline passed before it could run or finish. */
public final class JobDeadlineExceededException extends Exception {
  /**
   * A job that ran out of time.
   *
   * @param jobId the job
   * @param deadline its deadline
   * @param now when it was found past it
   * @param where what it was doing then
   */
  public JobDeadlineExceededException(long jobId, Instant deadline, Instant now, String where) {
    super("job " + jobId + " deadline " + deadline + " passed at " + now + " " + where);
  }
}
