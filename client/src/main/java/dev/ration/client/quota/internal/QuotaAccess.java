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
}
