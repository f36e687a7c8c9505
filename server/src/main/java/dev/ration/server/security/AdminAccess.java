package dev.ration.server.security;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsExchange;
import dev.ration.protocol.Permission;
import dev.ration.server.observability.AdminServer;
import java.nio.charset.StandardCharsets;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * Who may use the admin HTTP port in security mode secure: reads (/metrics, /health, /ready,
 * /status) are open while {@code security.open-health-endpoints} is true, else they need
 * CLUSTER_READ on "*"; every mutation needs CLUSTER_ADMIN on "*" (the admin role). The caller
 * authenticates with {@code Authorization: Bearer rtn_...} or, on HTTPS with client
 * certificates, its certificate. 401 without a valid credential, 403 without the permission.
 */
public final class AdminAccess implements AdminServer.Guard {
  private final Security security;

  public AdminAccess(Security security) {
    this.security = security;
  }

  @Override
  public Optional<Map.Entry<Integer, String>> refuse(HttpExchange ex, boolean mutation) {
    if (!security.secure() || (!mutation && security.options().openHealthEndpoints())) {
      return Optional.empty();
    }
    String header = ex.getRequestHeaders().getFirst("Authorization");
    byte[] credential = new byte[0];
    if (header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      credential = header.substring(7).trim().getBytes(StandardCharsets.US_ASCII);
    }
    String source = ex.getRemoteAddress() == null || ex.getRemoteAddress().getAddress() == null
        ? "unknown" : ex.getRemoteAddress().getAddress().getHostAddress();
    Object auth = security.authenticate(credential, certificateName(ex), Security.Port.ADMIN, source);
    if (auth instanceof Security.Refusal r) {
      return Optional.of(Map.entry(401, "UNAUTHENTICATED: " + r.message()));
    }
    Principal p = (Principal) auth;
    Permission needed = mutation ? Permission.CLUSTER_ADMIN : Permission.CLUSTER_READ;
    if (!security.holdsEverywhere(p.identity(), needed)) {
      security.refusal(p.identity(), new Security.Refusal(
          dev.ration.wire.ErrorCode.PERMISSION_DENIED, "admin http", "admin_http", 0));
      return Optional.of(Map.entry(403, "PERMISSION_DENIED: identity " + p.identity() + " may not "
          + ex.getRequestMethod() + " " + ex.getRequestURI().getPath() + " (needs " + needed
          + " on *)"));
    }
    return Optional.empty();
  }

  private static Optional<String> certificateName(HttpExchange ex) {
    if (!(ex instanceof HttpsExchange https) || https.getSSLSession() == null) {
      return Optional.empty();
    }
    try {
      Certificate[] chain = https.getSSLSession().getPeerCertificates();
      if (chain.length > 0 && chain[0] instanceof X509Certificate x) {
        return CertificateNames.nameOf(x);
      }
    } catch (SSLPeerUnverifiedException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }
}
