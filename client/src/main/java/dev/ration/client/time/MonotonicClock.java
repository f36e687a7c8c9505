package dev.ration.client.time;

/**
 * The client's monotonic clock: nanoseconds from an arbitrary origin, only ever compared with
 * other readings of the same clock. Every judgement of elapsed time in the client (a call's
 * deadline, a limiter's lease expiry and waits, a coalesced renewal's retention, latencies,
 * log throttling) reads one of these, so a test can move a manual clock past a deadline instead
 * of sleeping until it passes.
 *
 * <p>Set on {@code RationClientOptions.Builder#clock} (and {@code PoolOptions#withMonotonicClock}
 * for a worker pool); the default is {@link #SYSTEM}. An implementation must be thread-safe and
 * never go backwards.
 */
@FunctionalInterface
public interface MonotonicClock {
  /**
   * The JVM's monotonic clock, {@code System.nanoTime}: the default, and the only place the
   * client reads it.
   */
  MonotonicClock SYSTEM = System::nanoTime;

  /**
   * The current reading.
   *
   * @return nanoseconds since the clock's origin
   */
  long nanoTime();
}
