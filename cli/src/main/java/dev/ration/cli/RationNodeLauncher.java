package dev.ration.cli;

import dev.ration.server.RationNode;
import dev.ration.server.config.ServerConfig;
import dev.ration.server.logging.LogContext;

/** Starts the real node for `ration server`. */
final class RationNodeLauncher {
  private RationNodeLauncher() {}

  static NodeLauncher.RunningNode start(ServerConfig config, boolean join) throws Exception {
    RationNode node = RationNode.start(config, join);
    // One node per server process: its log lines carry its term and commit index.
    LogContext.raft(node.consensus()::currentTerm, node.consensus()::commitIndex);
    return new NodeLauncher.RunningNode() {
      @Override
      public void shutdown() {
        node.shutdown();
      }

      @Override
      public void awaitTermination() throws InterruptedException {
        node.awaitTermination();
        LogContext.raftGone();
      }
    };
  }
}
