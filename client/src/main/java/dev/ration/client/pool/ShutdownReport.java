package dev.ration.client.pool;

import java.util.List;

/**
 * What happened to the jobs that were accepted and not yet ended when shutdown began, by job id:
 * {@code finished} ended SUCCEEDED or FAILED, {@code cancelled} ended CANCELLED (queued jobs
 * dropped, running ones that stopped), {@code abandoned} were still running at the deadline
 * (their tokens are cancelled; they keep their worker threads until they return).
 */
public record ShutdownReport(List<Long> finished, List<Long> cancelled, List<Long> abandoned) {
  /**
   * A report; the lists are copied.
   *
   * @param finished jobs that ended by themselves
   * @param cancelled jobs cancelled before they ran
   * @param abandoned jobs still running at the deadline
   */
  public ShutdownReport {
    finished = List.copyOf(finished);
    cancelled = List.copyOf(cancelled);
    abandoned = List.copyOf(abandoned);
  }
}
