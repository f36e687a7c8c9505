package dev.ration.server.security;

/**
 * Who a connection authenticated as. {@code tokenId} is the bearer token it presented (0 for a
 * certificate or no credential), re-checked on every request so that a revoked or expired
 * token stops working on connections already open.
 */
public record Principal(String identity, Method method, long tokenId) {
  public enum Method {
    /** Security is off: nobody is asked who they are. */
    NONE,
    TOKEN,
    CERTIFICATE
  }

  /** The principal of every connection when security is off. */
  public static final Principal ANONYMOUS = new Principal("anonymous", Method.NONE, 0);

  public String how() {
    return switch (method) {
      case NONE -> "nothing (security mode insecure)";
      case TOKEN -> "token " + String.format("%016x", tokenId);
      case CERTIFICATE -> "client certificate";
    };
  }
}
