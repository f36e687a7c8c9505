package dev.ration.client.ttl.internal;

import dev.ration.client.time.MonotonicClock;
import dev.ration.client.transport.Transport;
import dev.ration.client.ttl.TtlEntries;
import java.util.function.BiFunction;

/**
 * Not API: how the client's root package builds {@link TtlEntries} over its transport, whose
 * constructor is not public so that no public signature mentions the transport. {@code
 * TtlEntries} installs the factory when it is initialized.
 */
public final class TtlAccess {
  private static volatile BiFunction<Transport, MonotonicClock, TtlEntries> factory;

  private TtlAccess() {}

  /** Installs the factory; only {@code TtlEntries}' initializer calls it, once. */
  public static synchronized void install(BiFunction<Transport, MonotonicClock, TtlEntries> f) {
    if (factory != null) {
      throw new IllegalStateException("TtlEntries factory already installed");
    }
    factory = f;
  }

  /** TTL entries whose calls go through {@code transport}, timed by the system's clock. */
  public static TtlEntries entries(Transport transport) {
    return entries(transport, MonotonicClock.SYSTEM);
  }

  /** TTL entries whose calls go through {@code transport}, their latencies timed by {@code clock}. */
  public static TtlEntries entries(Transport transport, MonotonicClock clock) {
    ensureInitialized(TtlEntries.class);
    return factory.apply(transport, clock);
  }

  static void ensureInitialized(Class<?> type) {
    try {
      Class.forName(type.getName(), true, type.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
  }
}
