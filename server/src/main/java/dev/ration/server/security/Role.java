package dev.ration.server.security;

import static dev.ration.protocol.Permission.CLUSTER_ADMIN;
import static dev.ration.protocol.Permission.CLUSTER_READ;
import static dev.ration.protocol.Permission.LEASE_USE;
import static dev.ration.protocol.Permission.LIMIT_ADMIN;
import static dev.ration.protocol.Permission.LIMIT_READ;
import static dev.ration.protocol.Permission.QUOTA_ADMIN;
import static dev.ration.protocol.Permission.QUOTA_USE;
import static dev.ration.protocol.Permission.SECURITY_ADMIN;
import static dev.ration.protocol.Permission.TTL_ADMIN;
import static dev.ration.protocol.Permission.TTL_READ;
import static dev.ration.protocol.Permission.TTL_WRITE;
import static dev.ration.protocol.Permission.USAGE_READ;
import static dev.ration.protocol.Permission.USAGE_WRITE;

import dev.ration.protocol.Permission;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The built-in roles: what each permits, over the tenant of its grant ("*" = every tenant and
 * the cluster-wide operations). A grant of a role name this table does not know permits
 * nothing. docs/SECURITY.md's table is checked against this one by a test.
 */
public enum Role {
  /**
   * Reads the cluster's status and the nodes' /metrics and /status, nothing else: what a
   * Prometheus scraper or a dashboard needs, without a tenant's data or an operator's powers.
   * Granted on "*" for the admin port, which serves every tenant's series.
   */
  MONITOR(EnumSet.of(CLUSTER_READ)),
  /** A service of one tenant: use leases, quotas, usage and TTL entries; read its limits. */
  SERVICE(EnumSet.of(LEASE_USE, LIMIT_READ, QUOTA_USE, USAGE_WRITE, TTL_READ, TTL_WRITE,
      CLUSTER_READ)),
  /** Configures tenants: limits, quotas, namespaces; reads everything in its scope. */
  OPERATOR(EnumSet.of(LIMIT_ADMIN, LIMIT_READ, QUOTA_ADMIN, QUOTA_USE, USAGE_READ, TTL_ADMIN,
      TTL_READ, CLUSTER_READ)),
  /** Everything, identities, roles, membership, snapshots and leadership included. */
  ADMIN(EnumSet.allOf(Permission.class));

  private final Set<Permission> permissions;

  Role(Set<Permission> permissions) {
    this.permissions = Set.copyOf(permissions);
  }

  public Set<Permission> permissions() {
    return permissions;
  }

  public boolean permits(Permission p) {
    return p == Permission.CONNECT || permissions.contains(p);
  }

  /** The name grants use: lower case. */
  public String roleName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Optional<Role> byName(String name) {
    for (Role r : values()) {
      if (r.roleName().equals(name)) {
        return Optional.of(r);
      }
    }
    return Optional.empty();
  }

  static {
    // An admin needs every permission there is, CLUSTER_ADMIN and SECURITY_ADMIN included.
    if (!ADMIN.permissions.contains(CLUSTER_ADMIN) || !ADMIN.permissions.contains(SECURITY_ADMIN)) {
      throw new IllegalStateException("admin role lacks a permission");
    }
  }
}
