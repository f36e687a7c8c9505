package dev.ration.client.slots.internal;

import dev.ration.client.slots.LeasedSlots;
import java.time.Clock;

/**
 * Not API: how the client's root package starts {@link LeasedSlots} over a {@link SlotLedger},
 * whose factory is not public so that no public signature mentions the ledger or the
 * transport. {@code LeasedSlots} installs the factory when it is initialized.
 */
public final class SlotsAccess {
  /** Starts a slot source over a transport. */
  @FunctionalInterface
  public interface Factory {
    /**
     * @param ledger where the slots are leased
     * @param maxSlots the pool's worker count
     * @param clock the clock that times the lease locally
     * @return the slot source, acquiring in the background
     */
    LeasedSlots start(SlotLedger ledger, int maxSlots, Clock clock);
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

  /** A slot source leasing from {@code ledger}. */
  public static LeasedSlots start(SlotLedger ledger, int maxSlots, Clock clock) {
    try {
      Class.forName(LeasedSlots.class.getName(), true, LeasedSlots.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
    return factory.start(ledger, maxSlots, clock);
  }
}
