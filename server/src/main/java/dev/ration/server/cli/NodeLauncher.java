package dev.ration.server.cli;

import dev.ration.server.config.ServerConfig;

/**
 * Starts a node for `ration server`: the seam that lets the CLI's parsing, config loading and
 * shutdown wiring be tested without starting Ratis. Production: {@link RationNodeLauncher}.
 */
@FunctionalInterface
interface NodeLauncher {
  RunningNode start(ServerConfig config) throws Exception;

  /** A started node. */
  interface RunningNode {
    /** Graceful shutdown (docs/OPERATIONS.md, "Graceful shutdown"); idempotent. */
    void shutdown();

    /** Blocks until the node has stopped. */
    void awaitTermination() throws InterruptedException;
  }
}
