package dev.ration.cli;

import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.cli.ClusterGateway.GatewayException;
import dev.ration.wire.security.RoleGrant;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** `ration role ...`: grants of the built-in roles (monitor, service, operator, admin) to identities. */
@Command(name = "role", description = "Grant, revoke and list roles (needs admin).",
    subcommands = {RoleCommand.Grant.class, RoleCommand.Revoke.class, RoleCommand.ListGrants.class})
final class RoleCommand {
  @picocli.CommandLine.Mixin HelpOption help;

  static final List<String> COLUMNS =
      List.of("identity", "role", "tenant", "grantedAt", "grantedBy");

  @Command(name = "grant", description = "Grant a role over a tenant ('*' = every tenant).")
  static final class Grant extends MutationCommand {
    @Option(names = "--identity", required = true, paramLabel = "NAME") String identity;
    @Option(names = "--role", required = true, paramLabel = "monitor|service|operator|admin") String role;
    @Option(names = "--tenant", required = true, paramLabel = "TENANT|*") String tenant;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      Response.SecurityChangeReply reply = send(g, new Request.GrantRole(identity, role, tenant),
          Response.SecurityChangeReply.class);
      return printOutcome(reply.outcome(), reply.message(), 0, TokenCommand.change(reply));
    }
  }

  @Command(name = "revoke", description = "Withdraw one grant.")
  static final class Revoke extends MutationCommand {
    @Option(names = "--identity", required = true, paramLabel = "NAME") String identity;
    @Option(names = "--role", required = true, paramLabel = "ROLE") String role;
    @Option(names = "--tenant", required = true, paramLabel = "TENANT|*") String tenant;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      Response.SecurityChangeReply reply = send(g, new Request.RevokeRole(identity, role, tenant),
          Response.SecurityChangeReply.class);
      return printOutcome(reply.outcome(), reply.message(), 0, TokenCommand.change(reply));
    }
  }

  @Command(name = "list", description = "List grants, of one identity or of all.")
  static final class ListGrants extends AdminCommand {
    @Option(names = "--identity", defaultValue = "", paramLabel = "NAME") String identity;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      Response.GrantList reply = send(g, new Request.ListGrants(identity), Response.GrantList.class);
      return printList("grants", reply.grants(), RoleCommand::view, COLUMNS);
    }
  }

  static Fields view(RoleGrant g) {
    return new Fields()
        .put("identity", g.identity())
        .put("role", g.role())
        .put("tenant", g.tenant())
        .put("grantedAtMillis", g.grantedAtMillis())
        .put("grantedBy", g.grantedBy());
  }
}
