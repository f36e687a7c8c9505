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
 * @param maxInFlightPerTenant reservations and usage ingests of one tenant being served at once
 *     across all connections of this node; beyond it the next one gets OVERLOADED immediately
 */
public record EndpointOptions(
    int maxFrameBytes,
    int maxInFlightPerConnection,
    int maxConnections,
    Duration defaultDeadline,
    Duration maxDeadline,
    int ioThreads,
    int maxInFlightPerTenant) {}
