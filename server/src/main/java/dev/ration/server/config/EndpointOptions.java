package dev.ration.server.config;

import java.time.Duration;

/**
 * Bounds of this node's client endpoint. They are local admission, not replicated state: nodes
 * may differ, and a change needs only a restart of the node.
 *
 * @param maxFrameBytes largest frame accepted; checked on the length prefix before allocating
 * @param maxInFlightPerConnection requests of one connection being served at once; beyond it the
 *     next request gets OVERLOADED immediately
 * @param maxConnections open client connections; beyond it new ones are closed at once
 * @param defaultDeadline deadline of a request that names none (timeoutMillis = 0)
 * @param maxDeadline longest deadline a request may ask for
 * @param ioThreads Netty event-loop threads for client connections
 * @param maxInFlightPerTenant requests of one tenant being served at once across all connections
 *     of this node (which requests: {@code tenantFairness}); beyond it the next one gets
 *     OVERLOADED immediately
 * @param tenantFairness which requests take a place in their tenant's share
 */
public record EndpointOptions(
    int maxFrameBytes,
    int maxInFlightPerConnection,
    int maxConnections,
    Duration defaultDeadline,
    Duration maxDeadline,
    int ioThreads,
    int maxInFlightPerTenant,
    TenantFairness tenantFairness) {

  public EndpointOptions {
    if (tenantFairness == null) {
      throw new IllegalArgumentException("tenantFairness is null");
    }
  }

  /** With every kind gated per tenant, the default. */
  public EndpointOptions(
      int maxFrameBytes,
      int maxInFlightPerConnection,
      int maxConnections,
      Duration defaultDeadline,
      Duration maxDeadline,
      int ioThreads,
      int maxInFlightPerTenant) {
    this(maxFrameBytes, maxInFlightPerConnection, maxConnections, defaultDeadline, maxDeadline,
        ioThreads, maxInFlightPerTenant, TenantFairness.ALL);
  }
}
