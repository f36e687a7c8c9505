package dev.ration.server.config;

import java.time.Duration;

/**
 * Bounds of the client endpoint.
 *
 * @param maxFrameBytes largest frame accepted; checked on the length prefix before allocating
 * @param maxInFlightPerConnection requests of one connection being served at once; beyond it the
 *     next request gets OVERLOADED immediately
 * @param maxConnections open client connections; beyond it new ones are closed at once
 * @param defaultDeadline deadline of a request that names none (timeoutMillis = 0)
 * @param maxDeadline longest deadline a request may ask for
 * @param ioThreads Netty event-loop threads for client connections
 */
public record EndpointOptions(
    int maxFrameBytes,
    int maxInFlightPerConnection,
    int maxConnections,
    Duration defaultDeadline,
    Duration maxDeadline,
    int ioThreads) {}
