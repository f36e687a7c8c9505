package dev.ration.client.tls.internal;

import io.netty.handler.ssl.OpenSslCertificateException;
import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.stream.Collectors;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A trust manager trusting exactly the CA certificates last {@link #set} (no JDK default roots),
 * swappable while connections are open, whose refusals say in plain words what is wrong with
 * the other side's certificate: expired, not yet valid, not signed by the trusted CA, or not
 * naming the host dialled. The JDK's own messages ("PKIX path building failed: unable to find
 * valid certification path to requested target") tell a developer little.
 * Thread-safe (volatile reference to an immutable pair).
 */
public final class ReloadingTrustManager extends X509ExtendedTrustManager {
  private record Trust(List<X509Certificate> cas, X509ExtendedTrustManager pkix) {}

  private volatile Trust trust;

  public ReloadingTrustManager(List<X509Certificate> cas) {
    this.trust = new Trust(List.copyOf(cas), Pki.trustManager(cas));
  }

  /** Trusts {@code cas} for every later handshake. */
  public void set(List<X509Certificate> cas) {
    this.trust = new Trust(List.copyOf(cas), Pki.trustManager(cas));
  }

  public List<X509Certificate> cas() {
    return trust.cas;
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    Trust t = trust;
    check("client", chain, t, () -> t.pkix.checkClientTrusted(chain, authType));
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
    Trust t = trust;
    check("client", chain, t, () -> t.pkix.checkClientTrusted(chain, authType, socket));
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
    Trust t = trust;
    check("client", chain, t, () -> t.pkix.checkClientTrusted(chain, authType, engine));
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    Trust t = trust;
    check("server", chain, t, () -> t.pkix.checkServerTrusted(chain, authType));
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
    Trust t = trust;
    check("server", chain, t, () -> t.pkix.checkServerTrusted(chain, authType, socket));
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
    Trust t = trust;
    check("server", chain, t, () -> t.pkix.checkServerTrusted(chain, authType, engine));
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return trust.cas.toArray(new X509Certificate[0]);
  }

  private interface Check {
    void run() throws CertificateException;
  }

  private static void check(String side, X509Certificate[] chain, Trust t, Check pkix) throws CertificateException {
    if (chain == null || chain.length == 0) {
      throw new CertificateException("the " + side + " presented no certificate");
    }
    X509Certificate leaf = chain[0];
    String who = "the " + side + "'s certificate '" + leaf.getSubjectX500Principal().getName() + "'";
    try {
      leaf.checkValidity();
    } catch (CertificateExpiredException e) {
      throw refusal(who + " expired at " + leaf.getNotAfter().toInstant()
          + "; the " + side + " must be given a renewed certificate", e, X509_V_ERR_CERT_HAS_EXPIRED);
    } catch (CertificateNotYetValidException e) {
      throw refusal(who + " is not valid before " + leaf.getNotBefore().toInstant()
          + " (a clock behind, or a certificate issued for later)", e, X509_V_ERR_CERT_NOT_YET_VALID);
    }
    try {
      pkix.run();
    } catch (CertificateException e) {
      String text = String.valueOf(e.getMessage());
      if (text.contains("subject alternative") || text.contains("No name matching")) {
        throw refusal(who + " does not name the address dialled (" + text
            + "); issue it with that host among its names", e, X509_V_ERR_HOSTNAME_MISMATCH);
      }
      if (text.contains("PKIX path") || text.contains("certification path") || text.contains("signature check failed")) {
        throw refusal(who + ", issued by '" + leaf.getIssuerX500Principal().getName()
            + "', is not signed by a trusted CA (trusted: " + names(t.cas) + ")", e,
            X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY);
      }
      throw refusal(who + " is refused: " + text, e, X509_V_ERR_CERT_REJECTED);
    }
  }

  // OpenSSL's verification results (x509_vfy.h, the same in BoringSSL). With Netty's OpenSSL
  // engine a refusal carrying one is sent as the matching TLS alert (unknown_ca,
  // certificate_expired, bad_certificate); a plain CertificateException would go out as
  // internal_error and the other side could not say what is wrong. The JDK's engine reads the
  // exception as any CertificateException.
  private static final int X509_V_ERR_CERT_NOT_YET_VALID = 9;
  private static final int X509_V_ERR_CERT_HAS_EXPIRED = 10;
  private static final int X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY = 20;
  private static final int X509_V_ERR_CERT_REJECTED = 28;
  private static final int X509_V_ERR_HOSTNAME_MISMATCH = 62;

  private static CertificateException refusal(String message, Throwable cause, int openSslCode) {
    return new OpenSslCertificateException(message, cause, openSslCode);
  }

  private static String names(List<X509Certificate> cas) {
    return cas.stream().map(c -> "'" + c.getSubjectX500Principal().getName() + "'").collect(Collectors.joining(", "));
  }
}
