package dev.ration.server.cli;

import dev.ration.server.config.ConfigException;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The `ration` executable: `server` runs a node; `cluster`, `limit` and `lease` administer a
 * running cluster through the client library. Only wires: parsing, loading and printing live in
 * the subcommands, and the two effects (reaching a cluster, starting a node) come in through
 * {@link ClusterGateway.Factory} and {@link NodeLauncher} so tests substitute them.
 *
 * <p>Exit codes ({@link Exit}): 0 ok, 1 usage or configuration error, 2 definite failure or
 * domain rejection, 3 indeterminate. Errors are one line on stderr, starting "error: ".
 */
@Command(name = "ration", mixinStandardHelpOptions = true, versionProvider = RationCli.Version.class,
    description = "Ration: a Raft-replicated coordinator for global quotas.",
    // `bench` (the load generator) is registered here when it lands.
    subcommands = {ServerCommand.class, ClusterCommand.class, LimitCommand.class, LeaseCommand.class,
        TtlCommand.class, LockCommand.class,
        QuotaCommand.class, ReserveCommand.class, ReservationCommand.class, UsageCommand.class,
        AuditCommand.class,
        dev.ration.server.loadgen.BenchCommand.class},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "0:ok",
        "1:usage or configuration error (nothing was sent)",
        "2:definite failure or domain rejection (e.g. NOT_LEADER, LIMIT_EXHAUSTED)",
        "3:indeterminate: timeout, unavailable or unreachable (a mutation may have applied)"})
public final class RationCli implements Runnable {
  private final ClusterGateway.Factory gatewayFactory;
  private final NodeLauncher nodeLauncher;

  RationCli(ClusterGateway.Factory gatewayFactory, NodeLauncher nodeLauncher) {
    this.gatewayFactory = gatewayFactory;
    this.nodeLauncher = nodeLauncher;
  }

  public static void main(String[] args) {
    System.exit(commandLine(ClientGateway::open, RationNodeLauncher::start).execute(args));
  }

  /** The command line with its handlers; tests pass fakes and capture out/err. */
  static CommandLine commandLine(ClusterGateway.Factory gateways, NodeLauncher launcher) {
    CommandLine cl = new CommandLine(new RationCli(gateways, launcher));
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    cl.setParameterExceptionHandler((ex, args) -> {
      PrintWriter err = ex.getCommandLine().getErr();
      err.println("error: " + ex.getMessage());
      err.println("see '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help'");
      err.flush();
      return Exit.USAGE;
    });
    cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
      PrintWriter err = commandLine.getErr();
      int code;
      if (ex instanceof CliFailure f) {
        err.println("error: " + f.getMessage());
        code = f.exitCode();
      } else if (ex instanceof ConfigException c) {
        err.println("error: " + c.getMessage());
        code = Exit.USAGE;
      } else if (ex instanceof CommandLine.ParameterException p) {
        err.println("error: " + p.getMessage());
        err.println("see '" + p.getCommandLine().getCommandSpec().qualifiedName() + " --help'");
        code = Exit.USAGE;
      } else {
        // A bug: show everything. Indeterminate, because we cannot say what was sent.
        err.println("error: unexpected " + ex);
        ex.printStackTrace(err);
        code = Exit.INDETERMINATE;
      }
      err.flush();
      return code;
    });
    return cl;
  }

  ClusterGateway.Factory gatewayFactory() {
    return gatewayFactory;
  }

  NodeLauncher nodeLauncher() {
    return nodeLauncher;
  }

  @Spec CommandSpec spec;

  @Override
  public void run() {
    // `ration` alone: a usage error for scripts; the handler points at --help.
    throw new CommandLine.ParameterException(spec.commandLine(),
        "name a command: server, cluster, limit or lease");
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {dev.ration.server.BuildInfo.current().describe()};
    }
  }
}
