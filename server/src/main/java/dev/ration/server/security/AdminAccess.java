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
 * Who may use the admin HTTP port in security mode secure (docs/SECURITY.md, "The admin
 * port"):
 *
 * <ul>
 *   <li>/health and /ready ({@link AdminServer.Access#PROBE}) answer anyone while
 *       {@code security.open-health-endpoints} is true (the default): load balancers and
 *       service managers probe without credentials, and the answer says only whether the node is
 *       alive and ready. Otherwise they need CLUSTER_READ on "*".
 *   <li>/metrics and /status ({@link AdminServer.Access#READ}) need CLUSTER_READ on "*" (the
 *       {@code monitor} role is exactly that), unless {@code security.open-metrics} is true:
 *       they name tenants, limits and peers, which only an identity that may read the whole
 *       cluster may see.
 *   <li>Every change ({@link AdminServer.Access#CHANGE}) needs CLUSTER_ADMIN on "*" (the
 *       {@code admin} role).
 * </ul>
 *
 * <p>The caller authenticates with {@code Authorization: Bearer rtn_...} or, on HTTPS, its
 * client certificate. 401 without a valid credential, 403 without the permission.
 */
public final class AdminAccess implements AdminServer.Guard {
  private final Security security;

  public AdminAccess(Security security) {
    this.security = security;
  }

  /** Whether {@code access} is served to callers that present no identity. */
  boolean open(AdminServer.Access access) {
    SecurityOptions o = security.options();
    return switch (access) {
      case PROBE -> o.openHealthEndpoints();
      case READ -> o.openMetrics();
      case CHANGE -> false;
    };
  }

  @Override
  public Optional<Map.Entry<Integer, String>> refuse(HttpExchange ex, AdminServer.Access access) {
    if (!security.secure() || open(access)) {
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
    Permission needed = access == AdminServer.Access.CHANGE
        ? Permission.CLUSTER_ADMIN : Permission.CLUSTER_READ;
    if (!security.holdsEverywhere(p.identity(), needed)) {
      security.refusal(p, new Security.Refusal(
          dev.ration.wire.ErrorCode.PERMISSION_DENIED, "admin http", "admin_http", 0));
      return Optional.of(Map.entry(403, "PERMISSION_DENIED: identity " + p.identity() + " may not "
          + ex.getRequestMethod() + " " + ex.getRequestURI().getPath() + " (needs " + needed
          + " on *, e.g. role " + (needed == Permission.CLUSTER_ADMIN ? "admin" : "monitor")
          + ")"));
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
