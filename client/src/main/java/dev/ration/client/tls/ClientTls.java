package dev.ration.client.tls;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * TLS settings of a client: the PEM file of the CA certificates to trust (required: with TLS on,
 * a client trusts exactly these, never the JDK's public roots), and optionally a certificate and
 * its key to present when the server asks for one. A client checks the files every {@code
 * reloadInterval} and, when they changed and pass the checks made at start, uses them for every
 * new connection (connections already open keep theirs), as a node does with its own files: a
 * long-lived client follows a renewed client certificate or a rotated CA without a restart.
 * Immutable.
 *
 * @param caFile PEM certificates the server's certificate must chain to
 * @param certFile PEM certificate (chain, leaf first) to present, or null for none
 * @param keyFile PEM PKCS#8 private key of {@code certFile}, or null for none
 * @param reloadInterval how often the files are checked for changes; zero never checks
 */
public record ClientTls(Path caFile, Path certFile, Path keyFile, Duration reloadInterval) {

  /** How often a client checks its files unless told otherwise: 10 s, as a node does. */
  public static final Duration DEFAULT_RELOAD_INTERVAL = Duration.ofSeconds(10);

  /**
   * The settings with the default reload interval.
   *
   * @param caFile PEM certificates the server's certificate must chain to
   * @param certFile PEM certificate (chain, leaf first) to present, or null for none
   * @param keyFile PEM PKCS#8 private key of {@code certFile}, or null for none
   */
  public ClientTls(Path caFile, Path certFile, Path keyFile) {
    this(caFile, certFile, keyFile, DEFAULT_RELOAD_INTERVAL);
  }

  /**
   * Checks that the CA file is named and that a certificate comes with its key.
   *
   * @param caFile PEM certificates the server's certificate must chain to
   * @param certFile PEM certificate (chain, leaf first) to present, or null for none
   * @param keyFile PEM PKCS#8 private key of {@code certFile}, or null for none
   * @param reloadInterval how often the files are checked for changes; zero never checks
   * @throws IllegalArgumentException when the CA file is missing, only one of the pair is set
   *     or the interval is negative
   */
  public ClientTls {
    if (reloadInterval == null || reloadInterval.isNegative()) {
      throw new IllegalArgumentException("TLS reload interval " + reloadInterval
          + " must be zero (never) or positive");
    }
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
    return new ClientTls(caFile, certFile, keyFile, reloadInterval);
  }

  /**
   * These settings, checking the files every {@code interval} (zero: never).
   *
   * @param interval how often the files are checked for changes
   * @return the settings
   */
  public ClientTls withReloadInterval(Duration interval) {
    return new ClientTls(caFile, certFile, keyFile, interval);
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
