package dev.ration.client.slots.internal;

import dev.ration.client.slots.LeasedSlots;
import dev.ration.client.transport.Transport;
import java.time.Clock;

/**
 * Not API: how the client's root package starts {@link LeasedSlots} over its transport, whose
 * factory is not public so that no public signature mentions the transport. {@code LeasedSlots}
 * installs the factory when it is initialized.
 */
public final class SlotsAccess {
  /** Starts a slot source over a transport. */
  @FunctionalInterface
  public interface Factory {
    /**
     * @param transport the transport carrying the lease's requests
     * @param tenant the limit's tenant
     * @param resource the limit's resource
     * @param holder the pool's holder name
     * @param maxSlots the pool's worker count
     * @param clock the clock that times the lease locally
     * @return the slot source, acquiring in the background
     */
    LeasedSlots start(Transport transport, String tenant, String resource, String holder,
        int maxSlots, Clock clock);
  }

  private static volatile Factory factory;

  private SlotsAccess() {}

  /** Installs the factory; only {@code LeasedSlots}' initializer calls it, once. */
  public static synchronized void install(Factory f) {
    if (factory != null) {
      throw new IllegalStateException("LeasedSlots factory already installed");
    }
    factory = f;
  }

  /** A slot source whose requests go through {@code transport}. */
  public static LeasedSlots start(Transport transport, String tenant, String resource,
      String holder, int maxSlots, Clock clock) {
    try {
      Class.forName(LeasedSlots.class.getName(), true, LeasedSlots.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
    return factory.start(transport, tenant, resource, holder, maxSlots, clock);
  }
}
