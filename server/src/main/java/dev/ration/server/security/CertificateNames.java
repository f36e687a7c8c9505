package dev.ration.server.security;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslHandler;
import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * The identity a verified client certificate names: its subject's common name (CN), or else
 * its first DNS or URI subject alternative name. The certificate was verified by TLS against
 * the configured CA before this runs; a connection without TLS, or whose client sent no
 * certificate, has no certificate name.
 */
public final class CertificateNames {
  private CertificateNames() {}

  /** The client certificate's name on a connection whose pipeline holds an {@link SslHandler}. */
  public static Optional<String> of(ChannelPipeline pipeline) {
    SslHandler ssl = pipeline.get(SslHandler.class);
    if (ssl == null) {
      return Optional.empty();
    }
    try {
      Certificate[] chain = ssl.engine().getSession().getPeerCertificates();
      if (chain.length > 0 && chain[0] instanceof X509Certificate x) {
        return nameOf(x);
      }
      return Optional.empty();
    } catch (SSLPeerUnverifiedException e) {
      return Optional.empty();
    }
  }

  public static Optional<String> nameOf(X509Certificate certificate) {
    try {
      LdapName dn = new LdapName(certificate.getSubjectX500Principal().getName());
      for (Rdn rdn : dn.getRdns()) {
        if ("CN".equalsIgnoreCase(rdn.getType())) {
          String cn = String.valueOf(rdn.getValue()).trim();
          if (!cn.isEmpty()) {
            return Optional.of(cn);
          }
        }
      }
    } catch (InvalidNameException e) {
      // Fall through to the alternative names.
    }
    try {
      Collection<List<?>> sans = certificate.getSubjectAlternativeNames();
      if (sans != null) {
        for (List<?> san : sans) {
          Object type = san.get(0);
          if ((Integer.valueOf(2).equals(type) || Integer.valueOf(6).equals(type)) && san.get(1) != null) {
            return Optional.of(san.get(1).toString());
          }
        }
      }
    } catch (CertificateParsingException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }
}
