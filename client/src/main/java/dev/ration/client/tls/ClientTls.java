package dev.ration.client.tls;

import java.nio.file.Path;
import java.util.Optional;

/**
 * TLS settings of a client: the PEM file of the CA certificates to trust (required: with TLS on,
 * a client trusts exactly these, never the JDK's public roots), and optionally a certificate and
 * its key to present when the server asks for one. Immutable.
 *
 * @param caFile PEM certificates the server's certificate must chain to
 * @param certFile PEM certificate (chain, leaf first) to present, or null for none
 * @param keyFile PEM PKCS#8 private key of {@code certFile}, or null for none
 */
public record ClientTls(Path caFile, Path certFile, Path keyFile) {

  /**
   * Checks that the CA file is named and that a certificate comes with its key.
   *
   * @param caFile PEM certificates the server's certificate must chain to
   * @param certFile PEM certificate (chain, leaf first) to present, or null for none
   * @param keyFile PEM PKCS#8 private key of {@code certFile}, or null for none
   * @throws IllegalArgumentException when the CA file is missing or only one of the pair is set
   */
  public ClientTls {
    if (caFile == null) {
      throw new IllegalArgumentException("TLS needs the CA certificate file to trust");
    }
    if ((certFile == null) != (keyFile == null)) {
      throw new IllegalArgumentException("a client certificate needs its key and the key its certificate "
          + "(certificate " + certFile + ", key " + keyFile + ")");
    }
  }

  /**
   * Trusts the CA certificates in {@code caFile}; presents no certificate.
   *
   * @param caFile PEM certificates the server's certificate must chain to
   * @return the settings
   */
  public static ClientTls trusting(Path caFile) {
    return new ClientTls(caFile, null, null);
  }

  /**
   * These settings, presenting {@code certFile} with {@code keyFile}.
   *
   * @param certFile PEM certificate (chain, leaf first) to present
   * @param keyFile PEM PKCS#8 private key of {@code certFile}
   * @return the settings
   */
  public ClientTls withKeyPair(Path certFile, Path keyFile) {
    return new ClientTls(caFile, certFile, keyFile);
  }

  /**
   * The client certificate presented, if any.
   *
   * @return the certificate file, or empty when none is presented
   */
  public Optional<Path> cert() {
    return Optional.ofNullable(certFile);
  }
}
