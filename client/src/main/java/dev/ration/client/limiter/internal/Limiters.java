package dev.ration.client.limiter.internal;

import dev.ration.client.limiter.LimiterOptions;
import dev.ration.client.limiter.LimiterScheduler;
import dev.ration.client.limiter.RateLimiter;
import dev.ration.client.time.MonotonicClock;

/**
 * Not API: builds a {@link RateLimiter} over any {@link LeaseTransport} (the client's, the
 * simulation's network, a test's fake). {@code RateLimiter} has no public constructor taking a
 * transport, so that no public signature mentions the wire records; it installs its factory
 * here when it is initialized. Services use {@code RationClient.rateLimiter}.
 */
public final class Limiters {
  /** The limiter's own factory. */
  @FunctionalInterface
  public interface Factory {
    /**
     * A limiter.
     *
     * @param transport its lease calls
     * @param scheduler its timers
     * @param clock its clock, unless the scheduler is a {@code ManualScheduler}
     * @param tenant the tenant
     * @param resource the resource
     * @param holder the holder
     * @param options its options
     * @return the limiter
     */
    RateLimiter create(LeaseTransport transport, LimiterScheduler scheduler, MonotonicClock clock,
        String tenant, String resource, String holder, LimiterOptions options);
  }

  private static volatile Factory factory;

  private Limiters() {}

  /**
   * Installs the factory; only {@code RateLimiter}'s initializer calls it, once.
   *
   * @param f the factory
   */
  public static synchronized void install(Factory f) {
    if (factory != null) {
      throw new IllegalStateException("RateLimiter factory already installed");
    }
    factory = f;
  }

  /**
   * A limiter over {@code transport} and {@code scheduler}. Nothing is sent until first use.
   *
   * @param transport its lease calls
   * @param scheduler its timers
   * @param tenant the tenant, not empty
   * @param resource the resource, not empty
   * @param holder the holder, not empty
   * @param options its options
   * @return the limiter
   */
  public static RateLimiter create(LeaseTransport transport, LimiterScheduler scheduler,
      String tenant, String resource, String holder, LimiterOptions options) {
    return create(transport, scheduler, MonotonicClock.SYSTEM, tenant, resource, holder, options);
  }

  /**
   * A limiter over {@code transport} and {@code scheduler} that times its leases and waits by
   * {@code clock} (a {@code ManualScheduler} is its own clock instead).
   *
   * @param transport its lease calls
   * @param scheduler its timers
   * @param clock its clock, unless the scheduler is a {@code ManualScheduler}
   * @param tenant the tenant, not empty
   * @param resource the resource, not empty
   * @param holder the holder, not empty
   * @param options its options
   * @return the limiter
   */
  public static RateLimiter create(LeaseTransport transport, LimiterScheduler scheduler,
      MonotonicClock clock, String tenant, String resource, String holder, LimiterOptions options) {
    try {
      Class.forName(RateLimiter.class.getName(), true, RateLimiter.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
    return factory.create(transport, scheduler, clock, tenant, resource, holder, options);
  }
}
