package dev.ration.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * `ration cluster caught-up ID --admin HOST:PORT`: waits until node ID is a caught-up voter —
 * running its Raft role, a voter of its configuration, following a leader, its applied index
 * within {@link MembershipCommand#CAUGHT_UP_GAP} entries of the leader's commit index — the
 * signal to wait on after restarting a node, before touching the next one in a rolling upgrade.
 * A node's own `/ready` compares its applied index with its own commit index, which a
 * restarted follower far behind the leader can reach long before it has the leader's log.
 * Exit 0 once it is, 3 if --wait runs out (with what the node last reported).
 */
@Command(name = "caught-up", description = "Wait until node ID is a running voter within "
    + MembershipCommand.CAUGHT_UP_GAP + " entries of the leader's commit index (exit 3 if not within --wait).")
final class CaughtUpCommand implements Callable<Integer> {
  private static final Duration POLL = Duration.ofMillis(250);

  @Mixin AdminOptions admin;
  @Mixin HelpOption help;
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "ID", description = "The node's id.")
  String id;

  @Option(names = "--admin", required = true, paramLabel = "HOST:PORT",
      description = "The node's admin HTTP address.")
  String nodeAdmin;

  @Option(names = "--admin-servers", paramLabel = "HOST:PORT[,HOST:PORT...]", split = ",",
      defaultValue = "${env:RATION_ADMIN_SERVERS:-" + MembershipCommand.DEFAULT_ADMIN + "}",
      description = "Admin HTTP addresses of the nodes, to find the leader (default: ${DEFAULT-VALUE}; env RATION_ADMIN_SERVERS).")
  List<String> adminServers = new ArrayList<>();

  @Option(names = "--wait", paramLabel = "DURATION", defaultValue = "2m",
      description = "How long to wait (default: ${DEFAULT-VALUE}).")
  String waitText = "2m";

  @Override
  public Integer call() throws InterruptedException {
    Duration wait;
    try {
      wait = dev.ration.server.config.Quantities.parseDuration(waitText);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--wait: " + e.getMessage());
    }
    AdminHttp adminHttp = AdminHttp.of(admin.tls(), admin.timeout(), admin.token());
    long deadline = System.nanoTime() + wait.toNanos();
    String last = "no answer yet";
    while (true) {
      Optional<String> leader = leader(adminHttp);
      if (leader.isEmpty()) {
        last = "no node of " + adminServers + " says it leads";
      } else {
        try {
          Optional<String> behind = MembershipCommand.notCaughtUp(adminHttp, admin.timeout(),
              leader.get(), id, nodeAdmin);
          if (behind.isEmpty()) {
            Fields f = new Fields().put("result", "ok").put("node", id)
                .put("message", id + " is a voter within " + MembershipCommand.CAUGHT_UP_GAP
                    + " entries of the leader's commit index");
            PrintWriter out = spec.commandLine().getOut();
            out.print(admin.output == AdminOptions.Format.json ? f.toJson() + "\n" : Tables.vertical(f));
            out.flush();
            return Exit.OK;
          }
          last = behind.get();
        } catch (IOException | RuntimeException e) {
          last = "its status could not be read: " + e.getMessage();
        }
      }
      if (System.nanoTime() + POLL.toNanos() >= deadline) {
        throw new CliFailure(Exit.INDETERMINATE, "not caught up within --wait (" + waitText + "): "
            + id + " (admin " + nodeAdmin + "): " + last);
      }
      Thread.sleep(POLL.toMillis());
    }
  }

  /** The admin address of the node that says it leads, if any answers so. */
  private Optional<String> leader(AdminHttp adminHttp) throws InterruptedException {
    for (String address : adminServers) {
      String a = address.trim();
      if (a.isEmpty()) {
        continue;
      }
      try {
        String status = MembershipCommand.get(adminHttp, admin.timeout(), a, "/status");
        if ("LEADER".equals(MembershipCommand.jsonString(status, "role"))) {
          return Optional.of(a);
        }
      } catch (IOException | RuntimeException e) {
        // Down, or not answering yet: ask the next one.
      }
    }
    return Optional.empty();
  }
}
