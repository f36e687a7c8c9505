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
 * @param helloTimeout how long a new connection may take to complete HELLO before it is closed
 *     (a connection that never speaks must not hold one of {@code maxConnections} forever)
 * @param frameTimeout how long one frame may take to arrive once its first byte has: a peer
 *     that starts a frame and then stalls (or dribbles it a byte at a time) is closed; a
 *     connection idle between frames is not affected
 */
public record EndpointOptions(
    int maxFrameBytes,
    int maxInFlightPerConnection,
    int maxConnections,
    Duration defaultDeadline,
    Duration maxDeadline,
    int ioThreads,
    int maxInFlightPerTenant,
    TenantFairness tenantFairness,
    Duration helloTimeout,
    Duration frameTimeout) {

  /** Default of {@code endpoint.hello-timeout}. */
  public static final Duration DEFAULT_HELLO_TIMEOUT = Duration.ofSeconds(10);
  /** Default of {@code endpoint.frame-timeout}. */
  public static final Duration DEFAULT_FRAME_TIMEOUT = Duration.ofSeconds(30);

  public EndpointOptions {
    if (tenantFairness == null) {
      throw new IllegalArgumentException("tenantFairness is null");
    }
    if (helloTimeout == null || helloTimeout.isNegative() || helloTimeout.isZero()) {
      throw new IllegalArgumentException("helloTimeout must be positive: " + helloTimeout);
    }
    if (frameTimeout == null || frameTimeout.isNegative() || frameTimeout.isZero()) {
      throw new IllegalArgumentException("frameTimeout must be positive: " + frameTimeout);
    }
  }

  /** With the default HELLO and frame timeouts. */
  public EndpointOptions(
      int maxFrameBytes,
      int maxInFlightPerConnection,
      int maxConnections,
      Duration defaultDeadline,
      Duration maxDeadline,
      int ioThreads,
      int maxInFlightPerTenant,
      TenantFairness tenantFairness) {
    this(maxFrameBytes, maxInFlightPerConnection, maxConnections, defaultDeadline, maxDeadline,
        ioThreads, maxInFlightPerTenant, tenantFairness, DEFAULT_HELLO_TIMEOUT,
        DEFAULT_FRAME_TIMEOUT);
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
