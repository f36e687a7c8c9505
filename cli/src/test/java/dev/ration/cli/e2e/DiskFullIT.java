package dev.ration.cli.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ration.testkit.Waits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node's disk fills up under load: three real `ration server` processes, n3's data directory
 * on a small tmpfs that also holds a ballast file. Goal: the node whose writes fail stops at once
 * with the cause in its log (instead of staying up with a failed Raft log, reporting healthy and
 * falling silently behind, or, as leader, holding the group); the two others go on taking
 * writes; once space is freed (the ballast deleted) the node starts again and catches up.
 *
 * <p>Needs root (mount); skipped otherwise. Unmounts what it mounted, in a finally block.
 */
class DiskFullIT {
  /** 24 MiB free at start: Ratis refuses to format a storage directory with much less. */
  private static final int TMPFS_MIB = 80;
  private static final int BALLAST_MIB = 56;

  @TempDir Path dir;

  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES)
  void aNodeWhoseDiskFillsStopsAndCatchesUpOnceSpaceIsFreed() throws Exception {
    assumeTrue("root".equals(System.getProperty("user.name")), "mounting a tmpfs needs root");
    Path root = EndToEndIT.findRoot();
    Path launcher = root.resolve("bin/ration");
    assertTrue(Files.isRegularFile(root.resolve("cli/target/ration-cli.jar")), "package the CLI first");
    Path cwd = Files.createDirectories(dir.resolve("cwd"));
    Path n3Data = Files.createDirectories(dir.resolve("run/data/n3"));
    run("mount", "-t", "tmpfs", "-o", "size=" + TMPFS_MIB + "m", "tmpfs", n3Data.toString());
    try (ProcessCluster cluster = new ProcessCluster(launcher, root.resolve("config/cluster-3"), dir.resolve("run"))) {
      Path ballast = n3Data.resolve("ballast");
      Files.write(ballast, new byte[BALLAST_MIB << 20]);
      cluster.start(cwd, id -> Map.of());
      cluster.awaitLeader(cwd);

      // 60 KB TTL values until n3's disk is full, in short bounded runs of the load generator, so
      // that little is written after it stops (it must fit once space is freed).
      ProcessCluster.Cli load = null;
      for (int run = 0; run < 15 && !cluster.log("n3").contains("FATAL, halting"); run++) {
        load = cluster.cli(cwd, "bench", "--servers", cluster.servers(),
            "--op", "ttl-put", "--ttl-value-bytes", "60000", "--ttl-keys", "5000", "--ttl", "600000",
            "--in-flight", "8", "--warmup", "1s", "--duration", "3s");
      }
      String n3Log = Waits.upTo(Duration.ofSeconds(60)).every(Duration.ofMillis(500)).until(
          "n3 stops with the cause in its log", () -> cluster.log("n3"),
          log -> log.contains("FATAL, halting"));
      // The Raft log's write or the state store's, whichever met the full disk first.
      assertTrue(n3Log.contains("No space left on device"), tail(n3Log));
      int exit = cluster.stopNode("n3");
      assertEquals(70, exit, "n3's exit code (halted on a failed write)\n" + tail(n3Log));
      assertTrue(load != null, "no load ran");

      // The two others still commit writes.
      ProcessCluster.Cli put = cluster.cli(cwd, "ttl", "put", "--servers", cluster.servers(),
          "--namespace", "bench", "--ttl", "10m", "after-n3", "still-written");
      assertEquals(0, put.exitCode(), put.toString());

      // Space freed: n3 starts again and catches up with what was committed without it.
      Files.delete(ballast);
      cluster.startNode("n3", launcher, cwd, Map.of());
      long leaderCommit = ((Number) cluster.awaitLeader(cwd).get("commitIndex")).longValue();
      Waits.upTo(Duration.ofSeconds(120)).every(Duration.ofSeconds(1)).until(
          "n3 applies up to the leader's commit index " + leaderCommit,
          () -> cluster.cli(cwd, "cluster", "status", "--servers", cluster.servers(), "--output", "json", "--timeout", "5s"),
          status -> n3Applied(status) >= leaderCommit);
      cluster.assertAllAlive();
    } finally {
      run("umount", "-l", n3Data.toString());
    }
  }

  private static long n3Applied(ProcessCluster.Cli status) {
    if (status.exitCode() != 0 && status.out().isBlank()) {
      return -1;
    }
    List<Object> rows = EndToEndIT.list(status.json().get("servers"));
    for (Object o : rows) {
      Map<String, Object> row = EndToEndIT.map(o);
      if ("n3".equals(row.get("id")) && row.get("appliedIndex") instanceof Number n) {
        return n.longValue();
      }
    }
    return -1;
  }

  private static String tail(String log) {
    return log.length() <= 6000 ? log : log.substring(log.length() - 6000);
  }

  private static void run(String... command) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("RATION_HELPER", "off");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes());
    assertTrue(p.waitFor(30, TimeUnit.SECONDS), String.join(" ", command) + " hung");
    assertEquals(0, p.exitValue(), String.join(" ", command) + ": " + out);
  }
}
