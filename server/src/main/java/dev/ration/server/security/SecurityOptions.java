package dev.ration.server.security;

import java.util.List;

/**
 * The {@code security:} section of a node's configuration (docs/CONFIGURATION.md).
 *
 * @param mode {@link Mode#SECURE}: every connection authenticates and every request is
 *     authorized (default deny); {@link Mode#INSECURE}: anyone who reaches a port may do
 *     anything (tests, local experiments; the node says so loudly at start)
 * @param bootstrapAdmins identities (client-certificate names) that are administrators before
 *     anything is replicated: how the first administrator exists
 * @param openHealthEndpoints whether the admin port's /health and /ready answer without
 *     authentication: load balancers and service managers probe them without credentials, and
 *     they say only whether the node is alive and ready
 * @param authFailuresPerMinute failed authentications one source address may make in a minute
 *     before it must wait (doubling each time, at most a minute)
 * @param bootstrapTokens administrator tokens named in the configuration by their salted hash
 *     only ({@code ration token bootstrap}): how the first administrator exists without client
 *     certificates
 * @param openMetrics whether the admin port's /metrics and /status answer without
 *     authentication. Off by default: they name tenants, limits, peers and the cluster's shape,
 *     which only an identity allowed to read the whole cluster (CLUSTER_READ on "*", the
 *     {@code monitor} role) may see
 */
public record SecurityOptions(
    Mode mode, List<String> bootstrapAdmins, boolean openHealthEndpoints, int authFailuresPerMinute,
    List<BootstrapToken> bootstrapTokens, boolean openMetrics) {

  /** A configured administrator token: its identity, id, salt and SHA-256(salt || secret). */
  public record BootstrapToken(String identity, long tokenId, byte[] salt, byte[] hash) {
    @Override
    public String toString() {
      return identity + "/" + String.format("%016x", tokenId);
    }
  }

  public SecurityOptions(Mode mode, List<String> bootstrapAdmins, boolean openHealthEndpoints,
      int authFailuresPerMinute) {
    this(mode, bootstrapAdmins, openHealthEndpoints, authFailuresPerMinute, List.of());
  }

  /** With /metrics and /status closed to callers without an identity (the default). */
  public SecurityOptions(Mode mode, List<String> bootstrapAdmins, boolean openHealthEndpoints,
      int authFailuresPerMinute, List<BootstrapToken> bootstrapTokens) {
    this(mode, bootstrapAdmins, openHealthEndpoints, authFailuresPerMinute, bootstrapTokens, false);
  }

  /** Whether {@code identity} is an administrator by configuration. */
  public boolean bootstrapAdmin(String identity) {
    return bootstrapAdmins.contains(identity)
        || bootstrapTokens.stream().anyMatch(t -> t.identity().equals(identity));
  }

  /** The configured token with {@code tokenId}, if any. */
  public java.util.Optional<BootstrapToken> bootstrapToken(long tokenId) {
    return bootstrapTokens.stream().filter(t -> t.tokenId() == tokenId).findFirst();
  }

  public enum Mode {
    SECURE,
    INSECURE
  }

  public static final SecurityOptions INSECURE = new SecurityOptions(Mode.INSECURE, List.of(), true, 10);

  public SecurityOptions {
    bootstrapAdmins = List.copyOf(bootstrapAdmins);
    bootstrapTokens = List.copyOf(bootstrapTokens);
    if (authFailuresPerMinute < 1) {
      throw new IllegalArgumentException("authFailuresPerMinute " + authFailuresPerMinute + " < 1");
    }
  }

  public boolean secure() {
    return mode == Mode.SECURE;
  }
}
