package dev.ration.cli;

import dev.ration.server.config.ConfigException;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
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
    // The commands are COMMANDS below, registered by commandLine(): not `subcommands` here,
    // which would make picocli build every command's model on every call (NamedCommandOnly).
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "0:ok",
        "1:usage or configuration error (nothing was sent)",
        "2:definite failure or domain rejection (e.g. NOT_LEADER, LIMIT_EXHAUSTED)",
        "3:indeterminate: timeout, unavailable or unreachable (a mutation may have applied)"})
public final class RationCli implements Runnable {
  /**
   * A command of `ration`: its name, the same as its {@code @Command}'s (NamedCommandOnlyTest),
   * kept here so finding the named command reads no annotation (reading one loads every class
   * its {@code subcommands} list names).
   */
  record Entry(String name, Class<?> type) {}

  /** Every command of `ration`, in the order `ration --help` lists them. */
  static final List<Entry> COMMANDS = List.of(
      new Entry("server", ServerCommand.class),
      new Entry("cluster", ClusterCommand.class),
      new Entry("limit", LimitCommand.class),
      new Entry("lease", LeaseCommand.class),
      new Entry("ttl", TtlCommand.class),
      new Entry("lock", LockCommand.class),
      new Entry("cert", CertCommand.class),
      new Entry("quota", QuotaCommand.class),
      new Entry("reserve", ReserveCommand.class),
      new Entry("reservation", ReservationCommand.class),
      new Entry("usage", UsageCommand.class),
      new Entry("audit", AuditCommand.class),
      new Entry("snapshot", SnapshotCommand.class),
      new Entry("token", TokenCommand.class),
      new Entry("role", RoleCommand.class),
      new Entry("security", SecurityAdminCommand.class),
      new Entry("helper", HelperCommand.class),
      new Entry("bench", BenchCommand.class),
      new Entry("completion", CompletionCommand.class));

  private final ClusterGateway.Factory gatewayFactory;
  private final NodeLauncher nodeLauncher;
  /** Where "now" comes from when ledger times are shown as instants (tests fix it). */
  private java.time.Clock wallClock = java.time.Clock.systemUTC();

  RationCli(ClusterGateway.Factory gatewayFactory, NodeLauncher nodeLauncher) {
    this.gatewayFactory = gatewayFactory;
    this.nodeLauncher = nodeLauncher;
  }

  public static void main(String[] args) {
    if (java.util.Arrays.asList(args).contains("server")) {
      // gRPC (inside Ratis) logs through java.util.logging: one format for every line.
      dev.ration.server.logging.JulBridge.install();
    } else if (System.getProperty("io.netty.jfr.enabled") == null) {
      // A one-shot admin command: Netty would otherwise register its buffer allocator's JFR
      // events, loading the flight recorder's metadata (about a tenth of the command's start).
      System.setProperty("io.netty.jfr.enabled", "false");
      // The logging facade initialises here, once, before the warm-up thread and this one can
      // both reach it (Netty logs while the TLS context is built): initialised by two threads at
      // once it prints a page of "substitute logger" warnings to the command's stderr.
      org.slf4j.LoggerFactory.getILoggerFactory();
      StartWarmup.startFor(args);
    }
    System.exit(commandLine(ClientGateway.FACTORY, RationNodeLauncher::start,
        NamedCommandOnly.forArgs(args)).execute(args));
  }

  /** The command line with its handlers; tests pass fakes and capture out/err. */
  static CommandLine commandLine(ClusterGateway.Factory gateways, NodeLauncher launcher) {
    return commandLine(gateways, launcher, NamedCommandOnly.ALL);
  }

  /** As above, with the models {@code models} builds (for `ration`: the named command's only). */
  static CommandLine commandLine(ClusterGateway.Factory gateways, NodeLauncher launcher,
      NamedCommandOnly models) {
    CommandLine cl = new CommandLine(new RationCli(gateways, launcher));
    models.register(cl, COMMANDS);
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    cl.setExecutionStrategy(parseResult -> {
      if (parseResult.isVersionHelpRequested() && !parseResult.hasSubcommand()
          && ((RationCli) parseResult.commandSpec().userObject()).output == AdminOptions.Format.json) {
        return printVersionJson(parseResult.commandSpec().commandLine());
      }
      passGlobalOptions(parseResult);
      return new CommandLine.RunLast().execute(parseResult);
    });
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

  java.time.Clock wallClock() {
    return wallClock;
  }

  void wallClock(java.time.Clock clock) {
    this.wallClock = clock;
  }

  @Spec CommandSpec spec;

  // The admin options, accepted before the command too (`ration --output json cluster status`):
  // picocli parses them here, and passGlobalOptions hands them to the command's AdminOptions.
  @Option(names = "--servers", paramLabel = "HOST:PORT[,HOST:PORT...]", split = ",",
      description = "Admin commands: client addresses of the servers (also accepted after the command).")
  List<String> servers;

  @Option(names = "--output", paramLabel = "table|json",
      description = "Admin commands: output format (also accepted after the command).")
  AdminOptions.Format output;

  @Option(names = "--timeout", paramLabel = "DURATION",
      description = "Admin commands: how long to wait for an answer (also accepted after the command).")
  String timeout;

  static final List<String> GLOBAL_OPTIONS = List.of("--servers", "--output", "--timeout");

  /**
   * Copies the admin options given before the command into the command's own {@link
   * AdminOptions}, unless the command was given them itself (the later, more specific one wins).
   * Refuses them before a command that has no such options (`ration --output json server`).
   */
  static void passGlobalOptions(CommandLine.ParseResult parseResult) {
    RationCli root = (RationCli) parseResult.commandSpec().userObject();
    List<String> given = GLOBAL_OPTIONS.stream().filter(parseResult::hasMatchedOption).toList();
    if (given.isEmpty()) {
      return;
    }
    CommandLine.ParseResult leaf = parseResult;
    while (leaf.hasSubcommand()) {
      leaf = leaf.subcommand();
    }
    AdminOptions admin = null;
    for (CommandSpec mixin : leaf.commandSpec().mixins().values()) {
      if (mixin.userObject() instanceof AdminOptions a) {
        admin = a;
      }
    }
    if (admin == null && leaf.commandSpec().userObject() instanceof HelperCommand.Status status
        && given.equals(List.of("--output"))) {
      // `helper status` talks to no cluster, but prints JSON for scripts like the admin commands.
      if (!leaf.hasMatchedOption("--output")) {
        status.output = root.output;
      }
      return;
    }
    if (admin == null) {
      if (leaf == parseResult) {
        return; // `ration --output json` alone: run() says to name a command.
      }
      throw new CommandLine.ParameterException(leaf.commandSpec().commandLine(),
          String.join(", ", given) + " applies to admin commands, not '" + leaf.commandSpec().qualifiedName() + "'");
    }
    if (given.contains("--servers") && !leaf.hasMatchedOption("--servers")) {
      admin.servers = new java.util.ArrayList<>(root.servers);
    }
    if (given.contains("--output") && !leaf.hasMatchedOption("--output")) {
      admin.output = root.output;
    }
    if (given.contains("--timeout") && !leaf.hasMatchedOption("--timeout")) {
      admin.timeoutText = root.timeout;
    }
  }

  @Override
  public void run() {
    // `ration` alone: a usage error for scripts; the handler points at --help.
    throw new CommandLine.ParameterException(spec.commandLine(),
        "name a command, e.g. server, cluster status, limit set or lease acquire (see 'ration --help')");
  }

  /** `ration --version --output json`: what --version says, for scripts. */
  private static int printVersionJson(CommandLine cl) {
    dev.ration.server.BuildInfo b = dev.ration.server.BuildInfo.current();
    String json = new Fields().put("version", b.version()).put("commit", b.shortCommit())
        .put("dirty", b.dirty()).toJson();
    cl.getOut().print(json + "\n");
    cl.getOut().flush();
    return Exit.OK;
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {dev.ration.server.BuildInfo.current().describe()};
    }
  }
}
