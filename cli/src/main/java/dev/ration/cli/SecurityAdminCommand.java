package dev.ration.cli;

import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.cli.ClusterGateway.GatewayException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** `ration security ...`: the security audit log and who the cluster takes you to be. */
@Command(name = "security", description = "Security audit log and identity.",
    subcommands = {SecurityAdminCommand.Audit.class, SecurityAdminCommand.WhoAmI.class})
final class SecurityAdminCommand {
  @picocli.CommandLine.Mixin HelpOption help;

  @Command(name = "audit", description = "Every change to tokens, grants, limits, quotas and"
      + " namespaces, with the identity that made it (needs admin).")
  static final class Audit extends AdminCommand {
    @Option(names = "--from", defaultValue = "1", paramLabel = "SEQ") long from;
    @Option(names = "--max", defaultValue = "100") int max;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      Response.SecurityAuditList reply = send(g, new Request.ReadSecurityAudit(from, max),
          Response.SecurityAuditList.class);
      return printList("audit", reply.records(), QuotaViews::audit, QuotaViews.AUDIT_COLUMNS);
    }
  }

  @Command(name = "whoami", description = "The identity this connection authenticated as, and its grants.")
  static final class WhoAmI extends AdminCommand {
    @Override
    int run(ClusterGateway g) throws GatewayException {
      Response.WhoAmIReply reply = send(g, new Request.WhoAmI(), Response.WhoAmIReply.class);
      print(new Fields()
          .put("identity", reply.identity())
          .put("authenticatedBy", reply.authenticatedBy())
          .put("grants", reply.grants().stream().map(RoleCommand::view).toList()));
      return Exit.OK;
    }
  }
}
