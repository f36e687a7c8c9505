package dev.ration.client.pool;

import java.time.Instant;

/** The failure of a job whose deadline passed before it could run or finish. */
public final class JobDeadlineExceededException extends Exception {
  public JobDeadlineExceededException(long jobId, Instant deadline, Instant now, String where) {
    super("job " + jobId + " deadline " + deadline + " passed at " + now + " " + where);
  }
}
