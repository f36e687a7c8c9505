package dev.ration.cli;

import dev.ration.client.tls.ClientTls;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where the CLI's commands find their TLS settings: flags first, else the certificates
 * directory ({@code $RATION_CERTS_DIR}, else {@code ~/.ration/certs}) with {@code ca.crt} and,
 * if there, {@code client.admin.crt}/{@code .key}; nothing found, plaintext
 * (docs/SECURITY.md, "Certificates"). Stateless.
 */
public final class ClientCredentials {
  public static final String ENV = "RATION_CERTS_DIR";
  public static final String CA_CERT = "ca.crt";
  public static final String ADMIN_CLIENT = "admin";

  private ClientCredentials() {}

  /** The certificates directory. */
  public static Path directory() {
    String env = System.getenv(ENV);
    if (env != null && !env.isBlank()) {
      return Path.of(env);
    }
    return Path.of(System.getProperty("user.home"), ".ration", "certs");
  }

  /**
   * TLS settings from {@code --ca}, {@code --cert}, {@code --key} (each null when not given) and
   * {@code --insecure}; throws IllegalArgumentException naming the flag for a combination that
   * cannot work.
   */
  public static Optional<ClientTls> resolve(Path ca, Path cert, Path key, boolean insecure) {
    if (insecure) {
      if (ca != null || cert != null || key != null) {
        throw new IllegalArgumentException("--insecure: cannot be combined with --ca, --cert or --key");
      }
      return Optional.empty();
    }
    if ((cert == null) != (key == null)) {
      throw new IllegalArgumentException(cert == null ? "--key: needs --cert" : "--cert: needs --key");
    }
    Path dir = directory();
    Path caFile = ca != null ? ca : dir.resolve(CA_CERT);
    if (ca == null && !Files.exists(caFile)) {
      if (cert != null) {
        throw new IllegalArgumentException("--cert: needs --ca (no " + caFile + ")");
      }
      return Optional.empty();
    }
    ClientTls tls = ClientTls.trusting(caFile);
    if (cert != null) {
      return Optional.of(tls.withKeyPair(cert, key));
    }
    Path defaultCert = dir.resolve("client." + ADMIN_CLIENT + ".crt");
    Path defaultKey = dir.resolve("client." + ADMIN_CLIENT + ".key");
    if (Files.exists(defaultCert) && Files.exists(defaultKey)) {
      return Optional.of(tls.withKeyPair(defaultCert, defaultKey));
    }
    return Optional.of(tls);
  }
}
