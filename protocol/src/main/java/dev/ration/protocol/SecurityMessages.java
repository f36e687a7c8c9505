package dev.ration.protocol;

import static dev.ration.wire.shape.Fields.bool;
import static dev.ration.wire.shape.Fields.bytes;
import static dev.ration.wire.shape.Fields.code;
import static dev.ration.wire.shape.Fields.i32;
import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.list;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.Outcome;
import dev.ration.wire.quota.AuditRecord;
import dev.ration.wire.security.RoleGrant;
import dev.ration.wire.security.TokenView;
import dev.ration.wire.shape.Shape;

/**
 * The shapes of the identity, role and security-audit messages (kinds 0x60–0x6F), each field
 * list written once for both directions, in wire order (docs/PROTOCOL.md).
 */
final class SecurityMessages {
  private SecurityMessages() {}

  /** Salt and hash are small; the bound keeps a hostile frame from asking for more. */
  static final int DIGEST_BYTES_MAX = 64;

  static final Shape<Request.CreateToken> CREATE_TOKEN =
      Shape.of(
          Request.CreateToken.class,
          i64("tokenId", Request.CreateToken::tokenId),
          str("identity", Request.CreateToken::identity),
          bytes("salt", Request.CreateToken::salt, DIGEST_BYTES_MAX),
          bytes("hash", Request.CreateToken::hash, DIGEST_BYTES_MAX),
          i64("ttlMillis", Request.CreateToken::ttlMillis));

  static final Shape<Request.RevokeToken> REVOKE_TOKEN =
      Shape.of(Request.RevokeToken.class, i64("tokenId", Request.RevokeToken::tokenId));

  static final Shape<Request.ListTokens> LIST_TOKENS = Shape.of(Request.ListTokens.class);

  static final Shape<Request.GrantRole> GRANT_ROLE =
      Shape.of(
          Request.GrantRole.class,
          str("identity", Request.GrantRole::identity),
          str("role", Request.GrantRole::role),
          str("tenant", Request.GrantRole::tenant));

  static final Shape<Request.RevokeRole> REVOKE_ROLE =
      Shape.of(
          Request.RevokeRole.class,
          str("identity", Request.RevokeRole::identity),
          str("role", Request.RevokeRole::role),
          str("tenant", Request.RevokeRole::tenant));

  static final Shape<Request.ListGrants> LIST_GRANTS =
      Shape.of(Request.ListGrants.class, str("identity", Request.ListGrants::identity));

  static final Shape<Request.ReadSecurityAudit> READ_SECURITY_AUDIT =
      Shape.of(
          Request.ReadSecurityAudit.class,
          i64("fromSequence", Request.ReadSecurityAudit::fromSequence),
          i32("max", Request.ReadSecurityAudit::max));

  static final Shape<Request.WhoAmI> WHOAMI = Shape.of(Request.WhoAmI.class);

  // Replies.

  static final Shape<Response.SecurityChangeReply> CHANGE_REPLY =
      Shape.of(
          Response.SecurityChangeReply.class,
          code("outcome", Response.SecurityChangeReply::outcome, Outcome::fromCode, Outcome::code),
          str("message", Response.SecurityChangeReply::message),
          bool("changed", Response.SecurityChangeReply::changed),
          i64("auditSequence", Response.SecurityChangeReply::auditSequence));

  static final Shape<Response.TokenList> TOKEN_LIST =
      Shape.of(
          Response.TokenList.class, list("tokens", Response.TokenList::tokens, TokenView.SHAPE));

  static final Shape<Response.GrantList> GRANT_LIST =
      Shape.of(
          Response.GrantList.class, list("grants", Response.GrantList::grants, RoleGrant.SHAPE));

  static final Shape<Response.SecurityAuditList> SECURITY_AUDIT =
      Shape.of(
          Response.SecurityAuditList.class,
          list("records", Response.SecurityAuditList::records, AuditRecord.SHAPE));

  static final Shape<Response.WhoAmIReply> WHOAMI_REPLY =
      Shape.of(
          Response.WhoAmIReply.class,
          str("identity", Response.WhoAmIReply::identity),
          str("authenticatedBy", Response.WhoAmIReply::authenticatedBy),
          list("grants", Response.WhoAmIReply::grants, RoleGrant.SHAPE));
}
