package dev.ration.client.quota.internal;

import dev.ration.client.quota.QuotaClient;
import dev.ration.client.time.MonotonicClock;
import dev.ration.client.transport.Transport;
import java.util.function.BiFunction;

/**
 * Not API: how the client's root package builds a {@link QuotaClient} over its transport, whose
 * constructor is not public so that no public signature mentions the transport. {@code
 * QuotaClient} installs the factory when it is initialized.
 */
public final class QuotaAccess {
  private static volatile BiFunction<Transport, MonotonicClock, QuotaClient> factory;

  private QuotaAccess() {}

  /**
   * Installs the factory; only {@code QuotaClient}'s initializer calls it, once.
   *
   * @param f the factory
   */
  public static synchronized void install(BiFunction<Transport, MonotonicClock, QuotaClient> f) {
    if (factory != null) {
      throw new IllegalStateException("QuotaClient factory already installed");
    }
    factory = f;
  }

  /**
   * A quota client whose calls go through {@code transport}.
   *
   * @param transport the transport
   * @return the quota client
   */
  public static QuotaClient client(Transport transport) {
    return client(transport, MonotonicClock.SYSTEM);
  }

  /**
   * A quota client whose calls go through {@code transport}, their latencies timed by {@code
   * clock}.
   *
   * @param transport the transport
   * @param clock the clock
   * @return the quota client
   */
  public static QuotaClient client(Transport transport, MonotonicClock clock) {
    try {
      Class.forName(QuotaClient.class.getName(), true, QuotaClient.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
    return factory.apply(transport, clock);
  }

  /** How a {@link dev.ration.client.quota.QuotaLimiter} is made over a quota client. */
  @FunctionalInterface
  public interface LimiterFactory {
    /**
     * A limiter.
     *
     * @param client the quota client its calls go through
     * @param scheduler where its control steps run
     * @param clock its monotonic clock, in nanoseconds
     * @param holder who holds its budgets
     * @param options its options
     * @return the limiter
     */
    dev.ration.client.quota.QuotaLimiter create(QuotaClient client,
        dev.ration.client.limiter.LimiterScheduler scheduler,
        java.util.function.LongSupplier clock, String holder,
        dev.ration.client.quota.QuotaLimiterOptions options);
  }

  private static volatile LimiterFactory limiters;

  /**
   * Installs the limiter factory; only {@code QuotaLimiter}'s initializer calls it, once.
   *
   * @param f the factory
   */
  public static synchronized void installLimiter(LimiterFactory f) {
    if (limiters != null) {
      throw new IllegalStateException("QuotaLimiter factory already installed");
    }
    limiters = f;
  }

  /**
   * A quota limiter whose budget calls go through {@code client}.
   *
   * @param client the quota client
   * @param scheduler where its control steps run
   * @param clock its monotonic clock, in nanoseconds
   * @param holder who holds its budgets
   * @param options its options
   * @return the limiter
   */
  public static dev.ration.client.quota.QuotaLimiter limiter(QuotaClient client,
      dev.ration.client.limiter.LimiterScheduler scheduler, java.util.function.LongSupplier clock,
      String holder, dev.ration.client.quota.QuotaLimiterOptions options) {
    try {
      Class.forName(dev.ration.client.quota.QuotaLimiter.class.getName(), true,
          QuotaClient.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
    return limiters.create(client, scheduler, clock, holder, options);
  }
}
