package dev.ration.server.config;

import dev.ration.server.consensus.ConsensusOptions;
import java.time.Duration;

/**
 * A node's whole validated configuration, as loaded from its YAML file by {@link ConfigLoader}.
 *
 * @param clientAddress host:port the Netty endpoint binds (this node's entry in the peers list)
 * @param adminAddress host:port of the HTTP admin endpoint (/metrics, /health, /ready, /status)
 * @param shutdownGrace how long a graceful shutdown waits for in-flight requests
 * @param security authentication and authorization ({@code security:}; docs/SECURITY.md)
 */
public record ServerConfig(
    ConsensusOptions consensus,
    String clientAddress,
    String adminAddress,
    EndpointOptions endpoint,
    Duration shutdownGrace,
    dev.ration.server.security.SecurityOptions security) {

  /** A configuration without a {@code security:} section: security mode insecure. */
  public ServerConfig(ConsensusOptions consensus, String clientAddress, String adminAddress,
      EndpointOptions endpoint, Duration shutdownGrace) {
    this(consensus, clientAddress, adminAddress, endpoint, shutdownGrace,
        dev.ration.server.security.SecurityOptions.INSECURE);
  }
}
