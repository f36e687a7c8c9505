package dev.ration.server.cli;

import dev.ration.server.RationNode;
import dev.ration.server.config.ServerConfig;

/** Starts the real node for `ration server`. */
final class RationNodeLauncher {
  private RationNodeLauncher() {}

  static NodeLauncher.RunningNode start(ServerConfig config) throws Exception {
    RationNode node = RationNode.start(config);
    return new NodeLauncher.RunningNode() {
      @Override
      public void shutdown() {
        node.shutdown();
      }

      @Override
      public void awaitTermination() throws InterruptedException {
        node.awaitTermination();
      }
    };
  }
}
