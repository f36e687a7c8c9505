package dev.ration.client.tls.internal;

import dev.ration.client.tls.ClientTls;
import dev.ration.protocol.tls.PemException;
import dev.ration.protocol.tls.PemFiles;
import dev.ration.protocol.tls.Pki;
import dev.ration.protocol.tls.ReloadingKeyManager;
import dev.ration.protocol.tls.ReloadingTrustManager;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLException;

/**
 * Builds the Netty TLS context of a client from its {@link ClientTls} settings. Kept out of the
 * public API: a service names files, never the transport's types, so the client's Netty can
 * change without breaking it.
 */
public final class ClientSslContexts {
  private ClientSslContexts() {
  }

  /**
   * Reads the files and builds the context (TLS 1.3 only).
   *
   * @param tls the settings
   * @return the context every connection of the client is wrapped in
   * @throws IllegalArgumentException naming the file and the problem when a file is missing or bad
   */
  public static SslContext of(ClientTls tls) {
    try {
      List<X509Certificate> cas = PemFiles.certificates(tls.caFile());
      SslContextBuilder b = SslContextBuilder.forClient()
          .trustManager(new ReloadingTrustManager(cas))
          .protocols("TLSv1.3")
          .endpointIdentificationAlgorithm("HTTPS");
      if (tls.certFile() != null) {
        List<X509Certificate> chain = PemFiles.certificates(tls.certFile());
        PrivateKey key = PemFiles.privateKey(tls.keyFile());
        if (!Pki.matches(key, chain.get(0))) {
          throw new PemException(tls.keyFile(), "is not the private key of the certificate in " + tls.certFile());
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
