package dev.ration.server.endpoint;

import dev.ration.protocol.Kind;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.server.security.Role;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.NamesActor;
import dev.ration.statemachine.command.QuotaCommand;
import dev.ration.statemachine.command.SecurityCommand;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import dev.ration.wire.Bytes;
import dev.ration.wire.Outcome;
import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.security.RoleGrant;

/**
 * The identity, role and security-audit kinds (0x60–0x6F): requests to commands and queries,
 * results to replies. A command leaves here with an empty actor; the connection fills in the
 * authenticated identity ({@link #withActor}), so no caller can claim to be someone else.
 */
final class SecurityTranslation {
  private SecurityTranslation() {}

  static void register(Operations ops) {
    ops.on(Kind.TOKEN_CREATE, Request.CreateToken.class, r -> r.salt() == null || r.hash() == null
            ? new Translation.Invalid("salt and hash are required")
            : new Translation.Mutation(new SecurityCommand.CreateToken(r.tokenId(), r.identity(),
                new Bytes(r.salt()), new Bytes(r.hash()), r.ttlMillis(), "")))
        .on(Kind.TOKEN_REVOKE, Request.RevokeToken.class,
            r -> new Translation.Mutation(new SecurityCommand.RevokeToken(r.tokenId(), "")))
        .on(Kind.TOKEN_LIST, Request.ListTokens.class,
            r -> new Translation.Read(new Query.ListTokens(), false))
        .on(Kind.ROLE_GRANT, Request.GrantRole.class, r -> roleProblem(r.role(), r.tenant(), true)
            .orElseGet(() -> new Translation.Mutation(
                new SecurityCommand.GrantRole(r.identity(), r.role(), r.tenant(), ""))))
        .on(Kind.ROLE_REVOKE, Request.RevokeRole.class, r -> roleProblem(r.role(), r.tenant(), false)
            .orElseGet(() -> new Translation.Mutation(
                new SecurityCommand.RevokeRole(r.identity(), r.role(), r.tenant(), ""))))
        .on(Kind.ROLE_LIST, Request.ListGrants.class, r -> new Translation.Read(
            new Query.ListGrants(r.identity() == null ? "" : r.identity()), false))
        .on(Kind.SECURITY_AUDIT_READ, Request.ReadSecurityAudit.class, r -> r.max() < 1
            ? new Translation.Invalid("max " + r.max() + " < 1")
            : new Translation.Read(new Query.ReadSecurityAudit(r.fromSequence(), r.max()), false))
        .on(Kind.WHOAMI, Request.WhoAmI.class, r -> new Translation.WhoAmI());
  }

  /** A grant of a role this server does not know would permit nothing: refused as a typo. */
  private static java.util.Optional<Translation.Action> roleProblem(
      String role, String tenant, boolean granting) {
    if (granting && Role.byName(role).isEmpty()) {
      return java.util.Optional.of(new Translation.Invalid("unknown role '" + role
          + "' (roles: " + String.join(", ", java.util.Arrays.stream(Role.values())
              .map(Role::roleName).toList()) + ")"));
    }
    if (granting && Role.ADMIN.roleName().equals(role) && !RoleGrant.ALL_TENANTS.equals(tenant)) {
      return java.util.Optional.of(new Translation.Invalid(
          "role admin is granted on every tenant only: --tenant '*'"));
    }
    return java.util.Optional.empty();
  }

  /**
   * {@code command} made by {@code actor}, in security mode secure: the commands that name
   * their actor get the authenticated identity.
   */
  static Command withActor(Command command, String actor) {
    return command instanceof NamesActor named ? named.withActor(actor) : command;
  }

}
