package dev.ration.client.pool;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A slot source a test drives by hand: set the permits and the lease end, and read back the
 * demand the pool reported. Stands in for the ledger-leased source.
 */
final class ScriptedSlotSource implements SlotSource {
  private volatile int permits;
  private volatile Instant validUntil;
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  final AtomicReference<int[]> lastUsage = new AtomicReference<>(new int[] {-1, -1});
  final java.util.concurrent.atomic.AtomicInteger reports = new java.util.concurrent.atomic.AtomicInteger();
  /** When set, {@code validUntil()} throws it (a source with a bug). */
  volatile RuntimeException validUntilFails;

  ScriptedSlotSource(int permits, Instant validUntil) {
    this.permits = permits;
    this.validUntil = validUntil;
  }

  void setPermits(int n) {
    permits = n;
    listeners.forEach(Runnable::run);
  }

  void setValidUntil(Instant until) {
    validUntil = until;
    listeners.forEach(Runnable::run);
  }

  @Override
  public int permits() {
    return permits;
  }

  @Override
  public Instant validUntil() {
    RuntimeException e = validUntilFails;
    if (e != null) {
      throw e;
    }
    return validUntil;
  }

  @Override
  public void addListener(Runnable onChange) {
    listeners.add(onChange);
  }

  @Override
  public void reportUsage(int running, int queued) {
    lastUsage.set(new int[] {running, queued});
    reports.incrementAndGet();
  }
}
