package dev.ration.server.config;

import dev.ration.server.consensus.ConsensusOptions;
import dev.ration.server.security.SecurityOptions;
import java.time.Duration;

/**
 * A node's whole validated configuration, as loaded from its YAML file by {@link ConfigLoader}.
 *
 * @param clientAddress host:port the Netty endpoint binds (this node's entry in the peers list)
 * @param adminAddress host:port of the HTTP admin endpoint (/metrics, /health, /ready, /status)
 * @param shutdownGrace how long a graceful shutdown waits for in-flight requests
 * @param tls transport security of the three ports
 * @param security authentication and authorization ({@code security:}; docs/SECURITY.md)
 */
public record ServerConfig(
    ConsensusOptions consensus,
    String clientAddress,
    String adminAddress,
    EndpointOptions endpoint,
    Duration shutdownGrace,
    TlsOptions tls,
    SecurityOptions security) {

  /** A configuration without transport security or authorization (tests that build it in code). */
  public ServerConfig(
      ConsensusOptions consensus, String clientAddress, String adminAddress, EndpointOptions endpoint,
      Duration shutdownGrace) {
    this(consensus, clientAddress, adminAddress, endpoint, shutdownGrace, TlsOptions.insecure("code"),
        SecurityOptions.INSECURE);
  }

  /** With transport security, without authorization. */
  public ServerConfig(
      ConsensusOptions consensus, String clientAddress, String adminAddress, EndpointOptions endpoint,
      Duration shutdownGrace, TlsOptions tls) {
    this(consensus, clientAddress, adminAddress, endpoint, shutdownGrace, tls, SecurityOptions.INSECURE);
  }

  /** With authorization, without transport security. */
  public ServerConfig(
      ConsensusOptions consensus, String clientAddress, String adminAddress, EndpointOptions endpoint,
      Duration shutdownGrace, SecurityOptions security) {
    this(consensus, clientAddress, adminAddress, endpoint, shutdownGrace, TlsOptions.insecure("code"),
        security);
  }
}
