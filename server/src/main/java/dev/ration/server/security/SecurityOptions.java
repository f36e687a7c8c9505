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
 * @param openHealthEndpoints whether the admin port's /metrics, /health, /ready and /status
 *     answer without authentication
 * @param authFailuresPerMinute failed authentications one source address may make in a minute
 *     before it must wait (doubling each time, at most a minute)
 */
public record SecurityOptions(
    Mode mode, List<String> bootstrapAdmins, boolean openHealthEndpoints, int authFailuresPerMinute) {

  public enum Mode {
    SECURE,
    INSECURE
  }

  public static final SecurityOptions INSECURE = new SecurityOptions(Mode.INSECURE, List.of(), true, 10);

  public SecurityOptions {
    bootstrapAdmins = List.copyOf(bootstrapAdmins);
    if (authFailuresPerMinute < 1) {
      throw new IllegalArgumentException("authFailuresPerMinute " + authFailuresPerMinute + " < 1");
    }
  }

  public boolean secure() {
    return mode == Mode.SECURE;
  }
}
