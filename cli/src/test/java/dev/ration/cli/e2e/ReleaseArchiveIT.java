package dev.ration.cli.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.server.BuildInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The release archive as an operator installs it: `mvn package` wrote
 * target/ration-VERSION.tar.gz; it is unpacked into an empty directory outside the source tree,
 * and a three-node cluster runs from the unpacked bin/ration alone, started from yet another
 * working directory.
 *
 * <p>Goal: the archive is complete (launcher, every jar, example configs, systemd unit, LICENSE,
 * NOTICE), `ration --version` names this build's version and commit, and `cluster status` from
 * the unpacked launcher sees a leader. Only the three started pids are stopped.
 */
class ReleaseArchiveIT {
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void unpackedArchiveRunsAThreeNodeCluster() throws Exception {
    BuildInfo build = BuildInfo.current();
    Path archive = Paths.get("target", "ration-" + build.version() + ".tar.gz").toAbsolutePath();
    assertTrue(Files.isRegularFile(archive), archive + " missing: run `mvn package` first");
    Path sourceRoot = Paths.get("").toAbsolutePath().getParent();

    Path dir = Files.createTempDirectory("ration-release-").toRealPath();
    assertFalse(dir.startsWith(sourceRoot), dir + " is inside the source tree " + sourceRoot);
    try {
      Process tar = new ProcessBuilder("tar", "-xzf", archive.toString(), "-C", dir.toString())
          .redirectErrorStream(true).start();
      assertTrue(tar.waitFor(60, TimeUnit.SECONDS), "tar did not finish");
      assertEquals(0, tar.exitValue(), new String(tar.getInputStream().readAllBytes()));

      Path home = dir.resolve("ration-" + build.version());
      try (Stream<Path> top = Files.list(dir)) {
        assertEquals(List.of(home), top.toList(), "one top directory in the archive");
      }
      assertTrue(Files.isExecutable(home.resolve("bin/ration")), "bin/ration is executable");
      for (String f : List.of("LICENSE", "NOTICE", "lib/ration-cli.jar", "lib/ration-server.jar",
          "lib/ration-bench.jar", "config/cluster-3/n1.yaml",
          "config/cluster-5/n5.yaml", "config/systemd/ration@.service")) {
        assertTrue(Files.isRegularFile(home.resolve(f)), f + " missing from the archive");
      }
      try (Stream<Path> jars = Files.list(home.resolve("lib"))) {
        List<String> names = jars.map(p -> p.getFileName().toString()).toList();
        for (String prefix : List.of("ration-client-", "ration-protocol-", "ration-statemachine-", "ratis-server-", "rocksdbjni-")) {
          assertTrue(names.stream().anyMatch(n -> n.startsWith(prefix)), prefix + "*.jar missing from lib/: " + names);
        }
        // picocli is compiled into the CLI's jar (for class-data sharing), not shipped beside it.
        assertFalse(names.stream().anyMatch(n -> n.startsWith("picocli-")), "picocli jar in lib/: " + names);
        try (java.util.jar.JarFile cli = new java.util.jar.JarFile(home.resolve("lib/ration-cli.jar").toFile())) {
          assertTrue(cli.getEntry("picocli/CommandLine.class") != null, "picocli classes in ration-cli.jar");
        }
      }

      // Started from a directory that is neither the release nor the source tree.
      Path cwd = Files.createDirectories(dir.resolve("elsewhere"));
      Path launcher = home.resolve("bin/ration");
      try (ProcessCluster cluster = new ProcessCluster(launcher, home.resolve("config/cluster-3"), dir.resolve("run"))) {
        ProcessCluster.Cli version = cluster.cli(cwd, "--version");
        assertEquals(0, version.exitCode(), version.toString());
        assertTrue(version.out().startsWith("ration " + build.version() + " ("), version.toString());
        if (!build.commit().equals(BuildInfo.UNKNOWN)) {
          assertTrue(version.out().contains("commit " + build.shortCommit()), version.toString());
        }

        cluster.start(cwd, id -> Map.of());
        Map<String, Object> leader = cluster.awaitLeader(cwd);
        assertTrue(ProcessCluster.IDS.contains(leader.get("id")), "leader row " + leader);

        ProcessCluster.Cli table = cluster.cli(cwd, "cluster", "status", "--servers", cluster.servers());
        assertEquals(0, table.exitCode(), table.toString());
        assertTrue(table.out().contains("LEADER"), table.toString());

        cluster.close();
        assertTrue(cluster.allExited(), "every started node exited");
        for (String id : ProcessCluster.IDS) {
          // The shutdown hook logs shutdown_complete before the JVM exits; the main thread's
          // later server_stopped line may never be scheduled before the exit.
          assertTrue(cluster.log(id).contains("event=shutdown_complete"), id + " did not stop gracefully:\n" + cluster.log(id));
        }
      }
    } finally {
      try (Stream<Path> walk = Files.walk(dir)) {
        for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }
}
