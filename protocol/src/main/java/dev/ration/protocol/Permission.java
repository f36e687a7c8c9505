package dev.ration.protocol;

/**
 * The permission an operation needs. Every {@link Kind} names one; with security on, the server
 * grants a request only if one of the caller's roles gives this permission over the request's
 * tenant (docs/SECURITY.md, "Roles and permissions").
 */
public enum Permission {
  /** Opening a session (HELLO). */
  CONNECT,
  /** Acquiring, renewing and returning leases. */
  LEASE_USE,
  /** Reading limits and the leases held against them. */
  LIMIT_READ,
  /** Creating and changing limits. */
  LIMIT_ADMIN,
  TTL_WRITE,
  TTL_READ,
  /** Changing the quota catalog, repairing usage, reading the audit log. */
  QUOTA_ADMIN,
  /** Reading the catalog and making, settling and listing reservations. */
  QUOTA_USE,
  USAGE_WRITE,
  USAGE_READ,
  CLUSTER_READ,
  /** Creating and changing TTL namespaces (their capacity and policy). */
  TTL_ADMIN,
  /** Managing identities: tokens and role grants, and reading the security audit log. */
  SECURITY_ADMIN,
  /** Membership, snapshots and leadership (the admin HTTP port's mutations). */
  CLUSTER_ADMIN
}
