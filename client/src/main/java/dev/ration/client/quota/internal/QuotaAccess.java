package dev.ration.client.quota.internal;

import dev.ration.client.quota.QuotaClient;
import dev.ration.client.transport.Transport;
import java.util.function.Function;

/**
 * Not API: how the client's root package builds a {@link QuotaClient} over its transport, whose
 * constructor is not public so that no public signature mentions the transport. {@code
 * QuotaClient} installs the factory when it is initialized.
 */
public final class QuotaAccess {
  private static volatile Function<Transport, QuotaClient> factory;

  private QuotaAccess() {}

  /**
   * Installs the factory; only {@code QuotaClient}'s initializer calls it, once.
   *
   * @param f the factory
   */
  public static synchronized void install(Function<Transport, QuotaClient> f) {
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
    try {
      Class.forName(QuotaClient.class.getName(), true, QuotaClient.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
    return factory.apply(transport);
  }
}
