package dev.ration.wire.security;

/**
 * Which tenant a name belongs to, for authorization: one rule shared by the server (which
 * checks requests that name their tenant) and the state machine (which checks requests that
 * name a lease or reservation by id). A limit's or lease's tenant is its tenant field; a quota
 * scope path ({@code org/tenant/project}) and a TTL namespace belong to their first
 * '/'-separated segment, so a grant on {@code acme} covers {@code acme}, {@code acme/shop} and
 * {@code acme/shop/web}.
 */
public final class Tenants {
  private Tenants() {}

  /** The tenant a scope path or namespace belongs to: the text before its first '/'. */
  public static String ofPath(String path) {
    int slash = path.indexOf('/');
    return slash < 0 ? path : path.substring(0, slash);
  }
}
