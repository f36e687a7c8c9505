package dev.ration.cli;

import dev.ration.client.tls.ClientTls;
import dev.ration.protocol.tls.PemException;
import dev.ration.protocol.tls.PemFiles;
import dev.ration.protocol.tls.Pki;
import dev.ration.protocol.tls.ReloadingKeyManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;

/**
 * The HTTP client of the commands that talk to the nodes' admin endpoints (membership,
 * snapshots): HTTPS with the same credentials as the client protocol when the CLI found any
 * (the CA certificate to trust, the client certificate to present), plain HTTP otherwise, and
 * the bearer token on every request when one was given. In security mode secure every admin
 * endpoint but /health and /ready asks who the caller is, so a token-only operator must send
 * it here as on the client port.
 */
final class AdminHttp {
  private final HttpClient http;
  private final String scheme;
  private final String token;

  private AdminHttp(HttpClient http, String scheme, String token) {
    this.http = http;
    this.scheme = scheme;
    this.token = token == null ? "" : token;
  }

  static AdminHttp of(Optional<ClientTls> tls, Duration connectTimeout) {
    return of(tls, connectTimeout, "");
  }

  /** As above, presenting {@code token} ("" for none) in {@code Authorization: Bearer}. */
  static AdminHttp of(Optional<ClientTls> tls, Duration connectTimeout, String token) {
    HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(connectTimeout);
    if (tls.isEmpty()) {
      return new AdminHttp(b.build(), "http", token);
    }
    ClientTls t = tls.get();
    try {
      List<X509Certificate> cas = PemFiles.certificates(t.caFile());
      KeyManager[] keys = null;
      if (t.certFile() != null) {
        List<X509Certificate> chain = PemFiles.certificates(t.certFile());
        PrivateKey key = PemFiles.privateKey(t.keyFile());
        keys = new KeyManager[] {new ReloadingKeyManager(key, chain)};
      }
      SSLContext ctx = SSLContext.getInstance("TLSv1.3");
      ctx.init(keys, new TrustManager[] {Pki.trustManager(cas)}, null);
      SSLParameters params = new SSLParameters();
      params.setProtocols(new String[] {"TLSv1.3"});
      return new AdminHttp(b.sslContext(ctx).sslParameters(params).build(), "https", token);
    } catch (PemException e) {
      throw new CliFailure(Exit.USAGE, "TLS: " + e.getMessage());
    } catch (GeneralSecurityException e) {
      throw new CliFailure(Exit.USAGE, "TLS: cannot build the admin HTTPS context: " + e.getMessage());
    }
  }

  HttpClient client() {
    return http;
  }

  /** The URI of {@code pathAndQuery} on the admin endpoint at host:port {@code address}. */
  URI uri(String address, String pathAndQuery) {
    return URI.create(scheme + "://" + address + pathAndQuery);
  }

  /** A request for {@code pathAndQuery} at {@code address}, carrying the token if any. */
  HttpRequest.Builder request(String address, String pathAndQuery) {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri(address, pathAndQuery));
    if (!token.isEmpty()) {
      b.header("Authorization", "Bearer " + token);
    }
    return b;
  }
}
