package dev.ration.server.limiter;

import dev.ration.server.config.EndpointOptions;
import dev.ration.server.config.ServerConfig;
import dev.ration.server.consensus.ConsensusOptions;
import dev.ration.server.consensus.Peer;
import dev.ration.statemachine.StateOptions;
import dev.ration.testkit.FreePorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Configurations of a three-node cluster on loopback, each node's data under {@code dir}. */
public final class ThreeNodes {
  private ThreeNodes() {}

  /** Three nodes of one group named after {@code name} and {@code dir}, on free ports. */
  public static List<ServerConfig> configs(Path dir, String name) {
    List<Peer> peers = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      peers.add(new Peer("n" + i, "127.0.0.1:" + FreePorts.next(), "127.0.0.1:" + FreePorts.next(),
          "127.0.0.1:" + FreePorts.next()));
    }
    String group = UUID.nameUUIDFromBytes((name + dir).getBytes()).toString();
    List<ServerConfig> out = new ArrayList<>();
    for (Peer p : peers) {
      ConsensusOptions consensus = new ConsensusOptions(
          p.id(), group, peers, dir.resolve(p.id()),
          Duration.ofMillis(300), Duration.ofMillis(600), Duration.ofSeconds(3),
          10_000, 0, 1 << 20,
          256, 64 << 10, Duration.ofMillis(2), 4, 1_000,
          Duration.ofMillis(100), 100, StateOptions.defaults());
      EndpointOptions endpoint =
          new EndpointOptions(1 << 20, 64, 16, Duration.ofSeconds(5), Duration.ofSeconds(30), 1, 256);
      out.add(new ServerConfig(consensus, p.clientAddress(), p.adminAddress(), endpoint,
          Duration.ofSeconds(2)));
    }
    return out;
  }
}
