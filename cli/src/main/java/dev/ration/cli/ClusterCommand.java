package dev.ration.cli;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;

/** `ration cluster ...`: the cluster as a whole. */
@Command(name = "cluster", description = "Cluster status and membership.",
    subcommands = {ClusterCommand.Status.class, MembershipCommand.Add.class,
        MembershipCommand.Remove.class, MembershipCommand.Replace.class,
        MembershipCommand.TransferLeader.class, CaughtUpCommand.class})
final class ClusterCommand {
  @picocli.CommandLine.Mixin HelpOption help;

  /**
   * Asks every server in --servers, all at once and without redirection, for its own view, so an
   * operator sees disagreement (two leaders in different terms, a lagging follower) directly.
   * Exit 0 if at least one server answered, 3 if none did.
   */
  @Command(name = "status", description = "Show each server's role, term, commit/applied index and leader.")
  static final class Status extends AdminCommand {
    @Override
    int run(ClusterGateway g) {
      List<Fields> rows = new ArrayList<>();
      List<String> failures = new ArrayList<>();
      for (ClusterGateway.StatusAnswer a : g.statusOfEach(admin.servers())) {
        if (a.failure() == null) {
          rows.add(Views.statusRow(a.address(), a.reply()));
        } else {
          rows.add(Views.unreachableRow(a.address(), a.failure().getMessage()));
          failures.add(a.failure().getMessage());
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
