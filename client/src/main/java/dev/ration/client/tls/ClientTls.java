package dev.ration.client.tls;

import dev.ration.client.tls.internal.PemException;
import dev.ration.client.tls.internal.PemFiles;
import dev.ration.client.tls.internal.Pki;
import dev.ration.client.tls.internal.ReloadingKeyManager;
import dev.ration.client.tls.internal.ReloadingTrustManager;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLException;

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

  /**
   * Reads the files and builds the Netty context (TLS 1.3 only).
   *
   * @return the context every connection of the client is wrapped in
   * @throws IllegalArgumentException naming the file and the problem when a file is missing or bad
   */
  public SslContext sslContext() {
    try {
      List<X509Certificate> cas = PemFiles.certificates(caFile);
      SslContextBuilder b = SslContextBuilder.forClient()
          .trustManager(new ReloadingTrustManager(cas))
          .protocols("TLSv1.3")
          .endpointIdentificationAlgorithm("HTTPS");
      if (certFile != null) {
        List<X509Certificate> chain = PemFiles.certificates(certFile);
        PrivateKey key = PemFiles.privateKey(keyFile);
        if (!Pki.matches(key, chain.get(0))) {
          throw new PemException(keyFile, "is not the private key of the certificate in " + certFile);
        }
        b.keyManager(new ReloadingKeyManager(key, chain));
      }
      return b.build();
    } catch (PemException e) {
      throw new IllegalArgumentException("TLS: " + e.getMessage(), e);
    } catch (SSLException e) {
      throw new IllegalArgumentException("TLS: cannot build the client context: " + e.getMessage(), e);
    }
  }
}
