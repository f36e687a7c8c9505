package dev.ration.client.pool;

import java.time.Duration;

/**
 * A snapshot of a pool's gauges and counters, read by {@code WorkerPoolMetrics} and by anyone
 * who wants numbers without Micrometer. Counters are totals since the pool started.
 *
 * @param queued jobs waiting to start (ready to run)
 * @param backingOff jobs waiting for a retry's backoff to end
 * @param oldestQueuedAge how long the oldest ready job has waited (zero when none)
 * @param running jobs running now (active workers)
 * @param workers W
 * @param slotsHeld what the slot source permits now, at most W
 * @param overruns jobs that were running when the slot lease ended
 * @param runNanosTotal summed run time of all attempts
 * @param attempts attempts ended
 */
public record PoolStats(int queued, int backingOff, Duration oldestQueuedAge, int running, int workers,
                        int slotsHeld, long accepted, long rejected, long overloaded, long succeeded,
                        long failed, long cancelled, long retries, long overruns, long runNanosTotal,
                        long attempts) {
  /**
   * Running jobs over workers, in [0, 1].
   *
   * @return running attempts over workers, 0 to 1
   */
  public double utilization() {
    return (double) running / workers;
  }
}
