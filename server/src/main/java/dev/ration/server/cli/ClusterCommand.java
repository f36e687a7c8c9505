package dev.ration.server.cli;

import dev.ration.server.cli.ClusterGateway.GatewayException;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;

/** `ration cluster ...`: the cluster as a whole. */
@Command(name = "cluster", description = "Cluster status and membership.",
    subcommands = {ClusterCommand.Status.class, MembershipCommand.Add.class,
        MembershipCommand.Remove.class, MembershipCommand.Replace.class,
        MembershipCommand.TransferLeader.class})
final class ClusterCommand {
  @picocli.CommandLine.Mixin HelpOption help;

  /**
   * Asks every server in --servers, one by one and without redirection, for its own view, so an
   * operator sees disagreement (two leaders in different terms, a lagging follower) directly.
   * Exit 0 if at least one server answered, 3 if none did.
   */
  @Command(name = "status", description = "Show each server's role, term, commit/applied index and leader.")
  static final class Status extends AdminCommand {
    @Override
    int run(ClusterGateway g) {
      List<Fields> rows = new ArrayList<>();
      List<String> failures = new ArrayList<>();
      for (String address : admin.servers()) {
        try {
          rows.add(Views.statusRow(address, g.status(address)));
        } catch (GatewayException e) {
          rows.add(Views.unreachableRow(address, e.getMessage()));
          failures.add(e.getMessage());
        }
      }
      printList("servers", rows, Views.STATUS_COLUMNS);
      if (failures.size() == rows.size()) {
        throw new CliFailure(Exit.INDETERMINATE, "no server answered: " + String.join("; ", failures));
      }
      return Exit.OK;
    }
  }
}
