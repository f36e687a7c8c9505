package dev.ration.wire.security;

import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.shape.Shape;

/**
 * One grant: {@code identity} holds {@code role} over {@code tenant} ({@link #ALL_TENANTS} for
 * every tenant). Roles are names here; what a role permits is the server's table, so a role
 * name this version does not know grants nothing.
 */
public record RoleGrant(
    String identity, String role, String tenant, long grantedAtMillis, String grantedBy) {
  /** The tenant of a grant that covers every tenant and the cluster-wide operations. */
  public static final String ALL_TENANTS = "*";

  /** Its one encoding: the protocol's answers carry it in this field order. */
  public static final Shape<RoleGrant> SHAPE =
      Shape.of(
          RoleGrant.class,
          str("identity", RoleGrant::identity),
          str("role", RoleGrant::role),
          str("tenant", RoleGrant::tenant),
          i64("grantedAtMillis", RoleGrant::grantedAtMillis),
          str("grantedBy", RoleGrant::grantedBy));
}
