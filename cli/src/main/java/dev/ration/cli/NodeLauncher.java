package dev.ration.cli;

import dev.ration.server.config.ServerConfig;

/**
 * Starts a node for `ration server`: the seam that lets the CLI's parsing, config loading and
 * shutdown wiring be tested without starting Ratis. Production: {@link RationNodeLauncher}.
 */
@FunctionalInterface
interface NodeLauncher {
  /**
   * Starts the node; {@code join}: a newcomer on an empty data directory that waits to be added
   * to a running cluster (`ration server --join`).
   */
  RunningNode start(ServerConfig config, boolean join) throws Exception;

  /** A started node. */
  interface RunningNode {
    /** Graceful shutdown (docs/OPERATIONS.md, "Graceful shutdown"); idempotent. */
    void shutdown();

    /** Blocks until the node has stopped. */
    void awaitTermination() throws InterruptedException;
  }
}
