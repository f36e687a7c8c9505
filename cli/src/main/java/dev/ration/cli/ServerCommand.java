package dev.ration.cli;

import dev.ration.server.config.ConfigException;
import dev.ration.server.config.ConfigLoader;
import dev.ration.server.config.ServerConfig;
import dev.ration.server.consensus.ConsensusOptions;
import dev.ration.server.logging.LogContext;
import dev.ration.server.logging.RationLogProvider;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * `ration server`: loads the configuration, starts the node, and blocks until it stops. SIGTERM
 * or Ctrl-C runs a shutdown hook that shuts the node down gracefully and waits for it, so the
 * JVM does not exit half way through (docs/OPERATIONS.md, "Graceful shutdown").
 */
@Command(name = "server", description = "Run a Ration node in the foreground.")
final class ServerCommand implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(ServerCommand.class);

  @ParentCommand RationCli root;
  @picocli.CommandLine.Mixin HelpOption help;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Source source;

  static final class Source {
    @Option(names = "--config", paramLabel = "FILE", description = "The node's YAML configuration (docs/CONFIGURATION.md).")
    Path config;

    @Option(names = "--node", paramLabel = "ID",
        description = "Run node ID (n1, n2 or n3) of the embedded 3-node loopback cluster, without a file.")
    String node;
  }

  @Option(names = "--data-dir", paramLabel = "DIR",
      description = "Data directory, overriding node.data-dir (relative to the working directory).")
  Path dataDir;

  @Option(names = "--join",
      description = "Start as a newcomer to a running cluster: on an empty data directory the node"
          + " waits to be added with 'ration cluster add' (ignored once it has a Raft log).")
  boolean join;

  @Override
  public Integer call() throws Exception {
    // A log setting that was refused would silently fall back to the defaults: refuse to start.
    String logError = RationLogProvider.settings().error();
    if (!logError.isEmpty()) {
      throw new ConfigException("logging settings", java.util.List.of(logError));
    }
    ServerConfig config = load();
    ConsensusOptions c = config.consensus();
    LogContext.node(c.nodeId());
    log.info("event=config_loaded node={} source={} group={} peers={} client={} raft={} admin={} data_dir={}",
        c.nodeId(), source.config != null ? source.config : "embedded", c.groupId(), c.peers().size(),
        config.clientAddress(), c.self().raftAddress(), config.adminAddress(), c.dataDir());
    NodeLauncher.RunningNode node;
    try {
      node = root.nodeLauncher().start(config, join);
    } catch (ConfigException e) {
      // A certificate file refused at start is a configuration problem like any other (exit 1).
      throw e;
    } catch (Exception e) {
      throw new CliFailure(Exit.FAILED, "cannot start node " + c.nodeId() + ": " + e.getMessage(), e);
    }
    Thread hook = new Thread(() -> {
      log.info("event=shutdown_requested node={}", c.nodeId());
      node.shutdown();
      try {
        node.awaitTermination();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "ration-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    log.info("event=server_running node={} client={} raft={} health={}://{}/health", c.nodeId(),
        config.clientAddress(), c.self().raftAddress(), config.tls().on() ? "https" : "http", config.adminAddress());
    node.awaitTermination();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // The JVM is already shutting down (the hook is running): nothing to remove.
    }
    log.info("event=server_stopped node={}", c.nodeId());
    return Exit.OK;
  }

  ServerConfig load() throws ConfigException {
    Optional<Path> dir = Optional.ofNullable(dataDir);
    if (source.config != null) {
      return ConfigLoader.load(source.config, dir);
    }
    return ConfigLoader.loadEmbedded(source.node, dir);
  }
}
