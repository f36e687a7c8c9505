package dev.ration.server.config;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Transport security of a node: one certificate and key (PEM) for its client, Raft peer and
 * admin ports, the CA its peers' and clients' certificates must chain to, and whether the
 * client port asks clients for a certificate. Validated file by file at start
 * ({@code dev.ration.server.tls.ServerTls}), not when the YAML is parsed, so a configuration can be
 * checked on a machine that does not hold the keys.
 *
 * @param mode {@link Mode#ON} or, explicitly, {@link Mode#INSECURE}
 * @param source where the configuration came from, for error messages
 * @param ca PEM certificates of the trusted CA (null when insecure)
 * @param cert PEM certificate chain of this node, leaf first (null when insecure)
 * @param key PEM PKCS#8 private key of {@code cert} (null when insecure)
 * @param clientAuth whether the client port asks for and requires a client certificate
 * @param reloadInterval how often the three files are checked for changes
 */
public record TlsOptions(
    Mode mode, String source, Path ca, Path cert, Path key, ClientAuth clientAuth, Duration reloadInterval) {

  public enum Mode { ON, INSECURE }

  public enum ClientAuth { NONE, OPTIONAL, REQUIRED }

  public static final Duration RELOAD_INTERVAL_DEFAULT = Duration.ofSeconds(10);

  /** Plaintext on every port; the node says so loudly at start. */
  public static TlsOptions insecure(String source) {
    return new TlsOptions(Mode.INSECURE, source, null, null, null, ClientAuth.NONE, RELOAD_INTERVAL_DEFAULT);
  }

  public boolean on() {
    return mode == Mode.ON;
  }
}
