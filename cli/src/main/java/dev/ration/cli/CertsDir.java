package dev.ration.cli;

import java.nio.file.Path;

/**
 * The certificates directory the CLI reads and {@code ration cert} writes:
 * {@code $RATION_CERTS_DIR}, else {@code ~/.ration/certs}. File names inside it are fixed, so
 * commands find their credentials without flags (docs/SECURITY.md, "Certificates").
 */
final class CertsDir {
  static final String CA_CERT = "ca.crt";
  static final String CA_KEY = "ca.key";
  static final String ADMIN_CLIENT = "admin";

  private CertsDir() {}

  static Path path() {
    return ClientCredentials.directory();
  }

  static String nodeBase(String id) {
    return "node." + id;
  }

  static String clientBase(String name) {
    return "client." + name;
  }

  static String clientCert(String name) {
    return clientBase(name) + ".crt";
  }

  static String clientKey(String name) {
    return clientBase(name) + ".key";
  }
}
