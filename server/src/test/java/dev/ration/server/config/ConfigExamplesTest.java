package dev.ration.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Goal: every shipped example under config/ is valid, names itself by its file name, keeps its
 * data in /var/lib/ration/ID (as docs/OPERATIONS.md installs it), and the
 * 3-node example matches the embedded default (same ports, same group), so `cluster.sh` and
 * `ration server --node` start the same cluster.
 */
class ConfigExamplesTest {

  static Path repoConfigDir() {
    // Surefire runs in server/; the examples live at the repository root.
    Path p = Path.of("").toAbsolutePath();
    for (int i = 0; i < 4 && p != null; i++, p = p.getParent()) {
      if (Files.isDirectory(p.resolve("config/cluster-3"))) {
        return p.resolve("config");
      }
    }
    throw new AssertionError("config/cluster-3 not found above " + Path.of("").toAbsolutePath());
  }

  @Test
  void everyExampleFileIsValid() throws IOException {
    List<Path> files;
    try (Stream<Path> s = Files.walk(repoConfigDir())) {
      // Node configurations; config/monitoring holds Prometheus rules, checked by MonitoringIT.
      files = s.filter(f -> f.toString().endsWith(".yaml") || f.toString().endsWith(".yml"))
          .filter(f -> !f.getParent().getFileName().toString().equals("monitoring")).sorted().toList();
    }
    assertEquals(8, files.size(), "expected cluster-3/n1..n3 and cluster-5/n1..n5, found " + files);
    List<String> failures = new ArrayList<>();
    for (Path f : files) {
      try {
        ServerConfig c = ConfigLoader.load(f);
        String expectedId = f.getFileName().toString().replaceFirst("\\.ya?ml$", "");
        String cluster = f.getParent().getFileName().toString();
        if (!c.consensus().nodeId().equals(expectedId)) {
          failures.add(f + ": node.id " + c.consensus().nodeId() + " differs from the file name");
        }
        // Outside any release directory: a release is replaced on upgrade, the data must stay.
        Path stateDir = Path.of("/var/lib/ration", expectedId);
        if (!c.consensus().dataDir().equals(stateDir)) {
          failures.add(f + ": data dir " + c.consensus().dataDir() + " is not " + stateDir);
        }
        if (!c.tls().on() || !c.security().secure() || !c.security().bootstrapAdmin("admin")) {
          failures.add(f + ": examples run with TLS and authorization, client.admin the first"
              + " administrator; found tls " + c.tls().mode() + ", security " + c.security());
        }
        int n = Integer.parseInt(cluster.substring("cluster-".length()));
        if (c.consensus().peers().size() != n) {
          failures.add(f + ": " + c.consensus().peers().size() + " peers in " + cluster);
        }
      } catch (ConfigException e) {
        failures.add(e.getMessage());
      }
    }
    assertTrue(failures.isEmpty(), String.join("\n", failures));
  }

  @Test
  void threeNodeExampleMatchesTheEmbeddedDefault() throws Exception {
    for (int i = 1; i <= 3; i++) {
      ServerConfig file = ConfigLoader.load(repoConfigDir().resolve("cluster-3/n" + i + ".yaml"));
      ServerConfig embedded = ConfigLoader.loadEmbedded("n" + i, Optional.of(file.consensus().dataDir()));
      // Equal but for where each was read from.
      TlsOptions t = file.tls();
      TlsOptions fileTlsFromEmbedded = new TlsOptions(t.mode(), embedded.tls().source(), t.ca(), t.cert(), t.key(),
          t.clientAuth(), t.reloadInterval());
      assertEquals(embedded, new ServerConfig(file.consensus(), file.clientAddress(), file.adminAddress(),
          file.endpoint(), file.shutdownGrace(), fileTlsFromEmbedded, file.security()));
      assertTrue(file.tls().on(), "the 3-node example runs with TLS");
      assertTrue(file.security().secure(), "the 3-node example runs with authorization");
      assertEquals(java.util.List.of("admin"), file.security().bootstrapAdmins(),
          "the CLI's client.admin certificate is the first administrator");
    }
  }

  @Test
  void fiveNodeExampleDoesNotCollideWithTheThreeNodeOne() throws Exception {
    ServerConfig three = ConfigLoader.load(repoConfigDir().resolve("cluster-3/n1.yaml"));
    ServerConfig five = ConfigLoader.load(repoConfigDir().resolve("cluster-5/n1.yaml"));
    List<String> addresses = new ArrayList<>();
    for (ServerConfig c : List.of(three, five)) {
      c.consensus().peers().forEach(p -> addresses.addAll(List.of(p.raftAddress(), p.clientAddress(), p.adminAddress())));
    }
    assertEquals(addresses.size(), addresses.stream().distinct().count(), "ports collide: " + addresses);
    assertTrue(!three.consensus().groupId().equals(five.consensus().groupId()), "distinct Raft groups");
  }
}
