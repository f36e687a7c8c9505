package dev.ration.protocol.tls;

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
      throw new CertificateException(who + " expired at " + leaf.getNotAfter().toInstant()
          + "; the " + side + " must be given a renewed certificate", e);
    } catch (CertificateNotYetValidException e) {
      throw new CertificateException(who + " is not valid before " + leaf.getNotBefore().toInstant()
          + " (a clock behind, or a certificate issued for later)", e);
    }
    try {
      pkix.run();
    } catch (CertificateException e) {
      String text = String.valueOf(e.getMessage());
      if (text.contains("subject alternative") || text.contains("No name matching")) {
        throw new CertificateException(who + " does not name the address dialled (" + text
            + "); issue it with that host among its names", e);
      }
      if (text.contains("PKIX path") || text.contains("certification path") || text.contains("signature check failed")) {
        throw new CertificateException(who + ", issued by '" + leaf.getIssuerX500Principal().getName()
            + "', is not signed by a trusted CA (trusted: " + names(t.cas) + ")", e);
      }
      throw new CertificateException(who + " is refused: " + text, e);
    }
  }

  private static String names(List<X509Certificate> cas) {
    return cas.stream().map(c -> "'" + c.getSubjectX500Principal().getName() + "'").collect(Collectors.joining(", "));
  }
}
