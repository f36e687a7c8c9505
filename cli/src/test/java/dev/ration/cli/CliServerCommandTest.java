package dev.ration.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.server.config.ServerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Goal: `ration server` hands the loaded configuration (file or embedded, with --data-dir) to
 * the launcher, waits for the node to stop, and turns bad configuration into exit 1 with every
 * problem listed. The launcher is a fake: starting Ratis is the node's tests' business.
 */
class CliServerCommandTest {
  @TempDir Path dir;
  private final CliHarness h = new CliHarness();
  private final List<ServerConfig> started = new ArrayList<>();
  private final List<String> calls = new ArrayList<>();
  private final List<Boolean> joins = new ArrayList<>();

  CliServerCommandTest() {
    h.launcher = (config, join) -> {
      started.add(config);
      joins.add(join);
      return new NodeLauncher.RunningNode() {
        @Override
        public void shutdown() {
          calls.add("shutdown");
        }

        @Override
        public void awaitTermination() {
          calls.add("await");
        }
      };
    };
  }

  @Test
  void embeddedNodeWithDataDir() {
    CliHarness.Run r = h.run("server", "--node", "n2", "--data-dir", dir.resolve("n2").toString());
    assertEquals(0, r.exitCode(), r.toString());
    assertEquals(1, started.size());
    assertEquals("n2", started.get(0).consensus().nodeId());
    assertEquals("127.0.0.1:7102", started.get(0).clientAddress());
    assertEquals(dir.resolve("n2").toAbsolutePath(), started.get(0).consensus().dataDir());
    assertEquals(List.of("await"), calls, "the node runs until it terminates; no shutdown without a signal");
  }

  @Test
  void configFile() throws Exception {
    Path file = dir.resolve("one.yaml");
    Files.writeString(file, """
        node: { id: solo, data-dir: data }
        cluster:
          peers: [ { id: solo, raft: 127.0.0.1:9201, client: 127.0.0.1:9101, admin: 127.0.0.1:9301 } ]
        """);
    CliHarness.Run r = h.run("server", "--config", file.toString());
    assertEquals(0, r.exitCode(), r.toString());
    assertEquals(dir.resolve("data").toAbsolutePath(), started.get(0).consensus().dataDir());
    CliHarness.Run joining = h.run("server", "--config", file.toString(), "--join");
    assertEquals(0, joining.exitCode(), joining.toString());
    assertEquals(List.of(false, true), joins, "--join reaches the launcher");
  }

  @Test
  void badConfigurationExitsOneListingEveryProblem() throws Exception {
    Path file = dir.resolve("bad.yaml");
    Files.writeString(file, """
        node: { id: n1, data-dir: d }
        cluster:
          peers: [ { id: n1, raft: 127.0.0.1:1, client: 127.0.0.1:2, admin: 127.0.0.1:3 } ]
        raft: { election-timeout-min: 50ms, election-timout-max: 2s }
        """);
    CliHarness.Run r = h.run("server", "--config", file.toString());
    assertEquals(Exit.USAGE, r.exitCode(), r.toString());
    assertEquals("error: invalid configuration " + file + " (2 problems):" + System.lineSeparator()
        + "  - raft.election-timeout-min: 50ms is below the minimum 100ms" + System.lineSeparator()
        + "  - raft.election-timout-max: unknown key (known keys here: election-timeout-max, election-timeout-min, "
        + "purge-preserved-entries, request-timeout, segment-size, snapshot-threshold-entries)\n", r.err());
    assertTrue(started.isEmpty());

    CliHarness.Run unknownNode = h.run("server", "--node", "n4");
    assertEquals(Exit.USAGE, unknownNode.exitCode(), unknownNode.toString());
    assertEquals("error: invalid configuration embedded default configuration: node.id: 'n4' is not among cluster.peers (ids: n1, n2, n3)\n",
        unknownNode.err());
    CliHarness.Run missing = h.run("server", "--config", dir.resolve("nope.yaml").toString());
    assertEquals(Exit.USAGE, missing.exitCode());
    assertEquals("error: invalid configuration " + dir.resolve("nope.yaml") + ": cannot read: no such file\n", missing.err());
  }

  @Test
  void aNodeThatCannotStartExitsTwo() {
    h.launcher = (c, join) -> {
      throw new java.net.BindException("Address already in use");
    };
    CliHarness.Run r = h.run("server", "--node", "n1", "--data-dir", dir.toString());
    assertEquals(Exit.FAILED, r.exitCode(), r.toString());
    assertEquals("error: cannot start node n1: Address already in use\n", r.err());
  }
}
