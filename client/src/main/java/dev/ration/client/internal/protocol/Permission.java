package dev.ration.client.internal.protocol;

/**
 * The permission an operation needs. Every {@link Kind} names one; the server does not enforce
 * them yet, but naming them with the operation keeps the table in one place for when it does.
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
  CLUSTER_READ
}
