package dev.ration.cli.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.testkit.Waits;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/ration's resident helper against a real secure three-node cluster: the first `cluster
 * status` runs directly and starts the helper, the next ones are answered by it (its served
 * count says so) with what a direct run prints, and `ration helper stop` ends its process.
 */
class CliHelperIT {
  private static final Pattern SERVED = Pattern.compile("pid=(\\d+) .* served=(\\d+) ");

  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES)
  void laterCallsAreAnsweredByTheHelperAndStopEndsIt(@TempDir Path dir) throws Exception {
    Path root = EndToEndIT.findRoot();
    Path cache = dir.resolve("cache");
    Map<String, String> on = Map.of("RATION_HELPER", "on", "RATION_CDS_DIR", cache.toString());
    Map<String, String> off = Map.of("RATION_HELPER", "off", "RATION_CDS_DIR", cache.toString());
    Optional<Long> helperPid = Optional.empty();
    try (ProcessCluster cluster = new ProcessCluster(root.resolve("bin/ration"), root.resolve("config/cluster-3"),
        dir.resolve("run"))) {
      cluster.start(dir, id -> Map.of());
      cluster.awaitLeader(dir);
      String[] status = {"cluster", "status", "--servers", cluster.servers(), "--output", "json"};

      ProcessCluster.Cli direct = cluster.cli(dir, off, status);
      assertEquals(0, direct.exitCode(), direct.toString());
      assertEquals(List.of(), helperStates(cache), "RATION_HELPER=off starts no helper");

      ProcessCluster.Cli first = cluster.cli(dir, on, status);
      assertEquals(0, first.exitCode(), first.toString());
      Waits.upTo(Duration.ofSeconds(90)).every(Duration.ofMillis(200)).until("the helper's state file",
          () -> helperStates(cache), s -> !s.isEmpty());
      Map<Long, Integer> started = served(cluster, dir, on);
      assertEquals(1, started.size(), "one helper answers: " + started);
      assertEquals(0, started.values().iterator().next(), "the first call ran directly: nothing served yet");

      for (int call = 1; call <= 2; call++) {
        ProcessCluster.Cli viaHelper = cluster.cli(dir, on, status);
        assertEquals(0, viaHelper.exitCode(), viaHelper.toString());
        assertEquals(stable(direct), stable(viaHelper), "the helper prints what a direct run prints");
        assertEquals(direct.err(), viaHelper.err());
        Map<Long, Integer> served = served(cluster, dir, on);
        assertEquals(1, served.size(), served.toString());
        helperPid = Optional.of(served.keySet().iterator().next());
        assertEquals(call, served.get(helperPid.get()), "call " + call + " was answered by the helper");
      }
      String log = Files.readString(helperLog(cache), StandardCharsets.UTF_8);
      assertTrue(log.contains("helper pid " + helperPid.get() + " listening"), log);

      ProcessCluster.Cli stop = cluster.cli(dir, off, "helper", "stop");
      assertEquals(0, stop.exitCode(), stop.toString());
      assertTrue(stop.out().contains("stopped helper pid " + helperPid.get()), stop.toString());
      assertFalse(ProcessHandle.of(helperPid.get()).map(ProcessHandle::isAlive).orElse(false), "the helper is gone");
      assertEquals(List.of(), helperStates(cache), "its state file is gone");
    } finally {
      // A failed run must not leave the helper behind: stop it by its pid.
      helperPid.flatMap(ProcessHandle::of).ifPresent(ProcessHandle::destroy);
    }
  }

  /** The status rows without their numbers (terms and indexes move): ids, addresses, roles, leader. */
  private static List<Map<String, Object>> stable(ProcessCluster.Cli status) {
    return EndToEndIT.list(status.json().get("servers")).stream().map(EndToEndIT::map)
        .map(row -> row.entrySet().stream().filter(e -> !(e.getValue() instanceof Number))
            .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)))
        .toList();
  }

  /** `ration helper status`: pid -> calls served, of every helper answering. */
  private static Map<Long, Integer> served(ProcessCluster cluster, Path dir, Map<String, String> env) throws Exception {
    Map<String, String> direct = new java.util.HashMap<>(env);
    direct.put("RATION_HELPER", "off");
    ProcessCluster.Cli s = cluster.cli(dir, direct, "helper", "status");
    assertEquals(0, s.exitCode(), s.toString());
    Map<Long, Integer> served = new java.util.HashMap<>();
    Matcher m = SERVED.matcher(s.out());
    while (m.find()) {
      served.put(Long.parseLong(m.group(1)), Integer.parseInt(m.group(2)));
    }
    return served;
  }

  private static List<Path> helperStates(Path cache) throws Exception {
    Path helpers = cache.resolve("helpers");
    if (!Files.isDirectory(helpers)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(helpers)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".state")).toList();
    }
  }

  private static Path helperLog(Path cache) throws Exception {
    try (Stream<Path> files = Files.list(cache.resolve("helpers"))) {
      return files.filter(f -> f.getFileName().toString().endsWith(".log")).findFirst().orElseThrow();
    }
  }
}
