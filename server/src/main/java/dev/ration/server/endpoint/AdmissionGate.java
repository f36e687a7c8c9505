package dev.ration.server.endpoint;

import dev.ration.wire.ErrorCode;
import dev.ration.server.config.EndpointOptions;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What every connection of one endpoint shares: the bounds, whether the node still admits
 * requests, and the count of requests in flight across all connections (for graceful shutdown).
 *
 * <p>Thread-safe: connections on different event loops acquire and release concurrently; the
 * shutdown thread drains. Invariant: {@link #inFlight()} equals the number of admitted requests
 * not yet finished (answered, timed out, failed, or dropped with their connection), never below 0.
 */
public final class AdmissionGate {
  private final EndpointOptions options;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final Set<ConnectionHandler> connections = ConcurrentHashMap.newKeySet();
  private final Object idle = new Object();
  /** Per-tenant fairness of reservations and usage ingests. */
  private final TenantShares tenantShares;
  private volatile boolean draining;

  public AdmissionGate(EndpointOptions options) {
    if (options.maxInFlightPerConnection() < 1
        || options.maxConnections() < 1
        || options.maxFrameBytes() < 64
        || options.defaultDeadline().isNegative()
        || options.defaultDeadline().isZero()
        || options.maxDeadline().compareTo(options.defaultDeadline()) < 0) {
      throw new IllegalArgumentException("bad endpoint options " + options);
    }
    this.options = options;
    this.tenantShares = new TenantShares(options.maxInFlightPerTenant());
  }

  public TenantShares tenantShares() {
    return tenantShares;
  }

  public EndpointOptions options() {
    return options;
  }

  /** True once shutdown began: new requests get UNAVAILABLE, new connections are closed. */
  public boolean draining() {
    return draining;
  }

  public void startDraining() {
    draining = true;
  }

  public int inFlight() {
    return inFlight.get();
  }

  public int connections() {
    return connections.size();
  }

  void acquired() {
    inFlight.incrementAndGet();
  }

  void released() {
    int now = inFlight.decrementAndGet();
    if (now < 0) {
      throw new IllegalStateException("in-flight count " + now + " < 0: a request was released twice");
    }
    if (now == 0) {
      synchronized (idle) {
        idle.notifyAll();
      }
    }
  }

  void register(ConnectionHandler connection) {
    connections.add(connection);
  }

  void unregister(ConnectionHandler connection) {
    connections.remove(connection);
  }

  /** Waits until no request is in flight or {@code timeoutNanos} passed; true if idle. */
  public boolean awaitIdle(long timeoutNanos) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutNanos;
    synchronized (idle) {
      // Bounded by the deadline; each wakeup re-checks the count.
      while (inFlight.get() > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(idle, left);
      }
      return true;
    }
  }

  /**
   * Answers every request still in flight with {@code code} on its connection's event loop.
   * Returns how many were in flight when called.
   */
  public int failAll(ErrorCode code, String message, int retryAfterMillis) {
    int count = inFlight.get();
    for (ConnectionHandler c : connections) {
      c.failPending(code, message, retryAfterMillis);
    }
    return count;
  }
}
