package dev.ration.cli.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.client.transport.RawClient;
import dev.ration.testkit.FreePorts;
import dev.ration.testkit.Waits;
import dev.ration.wire.Mode;
import dev.ration.wire.Outcome;
import dev.ration.wire.Policy;
import dev.ration.wire.lease.Limit;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rolling-restart drill: a real three-node cluster (three `ration server` JVMs: Ratis,
 * RocksDB, the TCP endpoint), three service replicas in three more JVMs ({@link PoolProcess}),
 * each a {@link dev.ration.client.pool.WorkerPool} of W = 4 whose concurrency is a slot lease on
 * one cap C = 6, so together they want twice what the cap allows. While they run, every node
 * is stopped and started again in turn (the leader among them), waiting for it to be ready
 * before the next.
 *
 * <p>Every job writes its start and end on CLOCK_MONOTONIC, which all processes of the machine
 * share; the test sweeps the three files in time order (ends before starts at equal times) for
 * the global concurrency at every instant. Asserts: it never exceeds C (jobs that honour
 * cancellation; a job a pool reported as an overrun would be allowed beyond C, and is
 * reported), the pools did use the cap (the drill is not vacuous), work continued after every
 * restart, and every accepted job reached exactly one terminal state with one run per attempt.
 */
class PoolRollingRestartTest {
  static final int C = 6;
  static final int W = 4;
  static final List<String> IDS = List.of("n1", "n2", "n3");

  private final Map<String, Process> nodes = new LinkedHashMap<>();
  private final List<Process> pools = new ArrayList<>();

  static String classPath() {
    return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
  }

  static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES)
  void sampledConcurrencyStaysUnderTheCapThroughARollingRestart(@TempDir Path dir) throws Exception {
    Map<String, int[]> ports = new LinkedHashMap<>();
    for (String id : IDS) {
      ports.put(id, new int[] {FreePorts.next(), FreePorts.next(), FreePorts.next()}); // raft, client, admin
    }
    String group = UUID.randomUUID().toString();
    StringBuilder peers = new StringBuilder();
    for (String id : IDS) {
      int[] p = ports.get(id);
      peers.append("    - { id: ").append(id).append(", raft: 127.0.0.1:").append(p[0])
          .append(", client: 127.0.0.1:").append(p[1]).append(", admin: 127.0.0.1:").append(p[2])
          .append(" }\n");
    }
    for (String id : IDS) {
      Files.createDirectories(dir.resolve("data/" + id));
      Files.writeString(dir.resolve(id + ".yaml"), "node:\n  id: " + id + "\n  data-dir: data/" + id
          + "\ncluster:\n  group-id: " + group + "\n  peers:\n" + peers
          + "raft:\n  election-timeout-min: 1s\n  election-timeout-max: 2s\n  request-timeout: 3s\n"
          + "shutdown:\n  grace: 2s\n", StandardCharsets.UTF_8);
    }
    List<String> servers = IDS.stream().map(id -> "127.0.0.1:" + ports.get(id)[1]).toList();
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    Path stop = dir.resolve("stop");
    long t0 = System.nanoTime();
    List<String> phases = new ArrayList<>();
    try {
      for (String id : IDS) {
        startNode(dir, id);
      }
      for (String id : IDS) {
        awaitReady(http, dir, id, ports.get(id)[2]);
      }
      try (RationClient admin = new RationClient(RationClientOptions.builder().addresses(servers)
          .requestDeadline(Duration.ofSeconds(5)).build())) {
        Limit limit = new Limit("acme", "db", 0, 0, Mode.HARD, 3_000, 1_000, 0, Policy.FAIR_SHARE, 0);
        Response.SlotLimitReply set = Waits.upTo(Duration.ofSeconds(60)).every(Duration.ofMillis(200))
            .until("the cap is set", () -> {
              try {
                Response r = RawClient.of(admin).call(new Request.SetLimitConcurrency(limit, C)).join();
                return r instanceof Response.SlotLimitReply s && s.outcome() == Outcome.SUCCESS ? s : null;
              } catch (RuntimeException e) {
                return null; // no leader yet
              }
            }, r -> r != null);
        assertEquals(C, set.slots().concurrency());
      }

      List<Path> outs = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        Path out = dir.resolve("pool-" + i + ".txt");
        outs.add(out);
        pools.add(new ProcessBuilder(java(), "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-cp", classPath(), PoolProcess.class.getName(), String.join(",", servers), "pool-" + i,
            Integer.toString(W), stop.toString(), "100000", out.toString())
            .redirectErrorStream(true).redirectOutput(dir.resolve("pool-" + i + ".log").toFile()).start());
      }
      phases.add("cluster and cap " + seconds(t0));
      // Every replica runs jobs before the first restart.
      Waits.upTo(Duration.ofSeconds(60)).every(Duration.ofMillis(200)).until("every pool runs jobs",
          () -> {
            assertAlive(dir);
            return outs.stream().allMatch(o -> startsIn(o) > 0);
          }, b -> b);

      phases.add("pools running " + seconds(t0));
      Map<String, long[]> windows = new LinkedHashMap<>();
      for (String id : IDS) {
        long down = System.nanoTime();
        Process p = nodes.get(id);
        p.destroy();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        startNode(dir, id);
        awaitReady(http, dir, id, ports.get(id)[2]);
        long up = System.nanoTime();
        windows.put(id, new long[] {down, up});
        phases.add(id + " down at " + String.format("%.1f s", (down - t0) / 1e9) + " for " + (up - down) / 1_000_000 + " ms");
        // Work goes on after the node is back, before the next one goes down.
        long before = totalStarts(outs);
        Waits.upTo(Duration.ofSeconds(30)).every(Duration.ofMillis(100)).until(
            "jobs start after " + id + " restarted", () -> totalStarts(outs) > before + 30, b -> b);
      }
      phases.add("restarts done " + seconds(t0));
      Files.writeString(stop, "stop");
      for (Process p : pools) {
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "a pool process did not drain and exit");
        assertEquals(0, p.exitValue(), "pool process exit code; logs in " + dir);
      }

      // Sweep every job of every replica.
      List<long[]> events = new ArrayList<>(); // time, kind (0 end, 1 start), honest (1) or overrun (0)
      int overruns = 0;
      long accepted = 0;
      for (int i = 0; i < outs.size(); i++) {
        List<String> lines = Files.readAllLines(outs.get(i), StandardCharsets.UTF_8);
        assertEquals("DONE", lines.get(lines.size() - 1), "pool-" + i + " did not finish its report");
        Map<String, Long> starts = new HashMap<>();
        Map<String, Long> ends = new HashMap<>();
        Map<Long, Integer> runsPerJob = new HashMap<>();
        Set<Long> acceptedIds = new HashSet<>();
        Map<Long, String[]> results = new HashMap<>();
        for (String line : lines) {
          String[] f = line.split(" ");
          switch (f[0]) {
            case "A" -> assertTrue(acceptedIds.add(Long.parseLong(f[1])), "accepted twice: " + line);
            case "S" -> {
              starts.put(f[1] + "/" + f[2], Long.parseLong(f[3]));
              runsPerJob.merge(Long.parseLong(f[1]), 1, Integer::sum);
            }
            case "E" -> ends.put(f[1] + "/" + f[2], Long.parseLong(f[3]));
            case "R" -> assertTrue(results.put(Long.parseLong(f[1]), f) == null,
                "two terminal results for one job: " + line);
            default -> { }
          }
        }
        accepted += acceptedIds.size();
        assertEquals(acceptedIds, results.keySet(), "pool-" + i + ": every accepted job has one terminal result");
        Set<Long> overrunJobs = new HashSet<>();
        for (String[] r : results.values()) {
          assertTrue(Set.of("SUCCEEDED", "FAILED", "CANCELLED").contains(r[2]), "terminal state " + r[2]);
          int attempts = Integer.parseInt(r[3]);
          assertEquals(attempts, (int) runsPerJob.getOrDefault(Long.parseLong(r[1]), 0),
              "pool-" + i + " job " + r[1] + ": runs recorded vs attempts");
          if (Boolean.parseBoolean(r[4])) {
            overrunJobs.add(Long.parseLong(r[1]));
          }
        }
        overruns += overrunJobs.size();
        assertEquals(starts.keySet(), ends.keySet(), "pool-" + i + ": every run that started ended");
        for (Map.Entry<String, Long> s : starts.entrySet()) {
          long job = Long.parseLong(s.getKey().substring(0, s.getKey().indexOf('/')));
          long honest = overrunJobs.contains(job) ? 0 : 1;
          events.add(new long[] {s.getValue(), 1, honest});
          events.add(new long[] {ends.get(s.getKey()), 0, honest});
        }
      }
      events.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
      int running = 0;
      int honestRunning = 0;
      int peak = 0;
      int honestPeak = 0;
      Map<String, Integer> startsWhileDown = new LinkedHashMap<>();
      IDS.forEach(id -> startsWhileDown.put(id, 0));
      for (long[] e : events) {
        int d = e[1] == 1 ? 1 : -1;
        running += d;
        honestRunning += e[2] == 1 ? d : 0;
        peak = Math.max(peak, running);
        honestPeak = Math.max(honestPeak, honestRunning);
        if (e[1] == 1) {
          for (Map.Entry<String, long[]> w : windows.entrySet()) {
            if (e[0] >= w.getValue()[0] && e[0] <= w.getValue()[1]) {
              startsWhileDown.merge(w.getKey(), 1, Integer::sum);
            }
          }
        }
      }
      String summary = "runs " + events.size() / 2 + ", accepted " + accepted + ", peak " + peak
          + ", peak without overruns " + honestPeak + ", overruns " + overruns
          + ", job starts while each node was down " + startsWhileDown + "; " + phases
          + ", drained " + seconds(t0);
      System.out.println("rolling restart drill: " + summary);
      assertTrue(honestPeak <= C, "global concurrency above C = " + C + ": " + summary);
      assertTrue(peak <= C + overruns, "above C plus the overruns reported: " + summary);
      assertTrue(peak >= C - 1, "the pools never used the cap, so the drill shows nothing: " + summary);
    } finally {
      Files.writeString(stop, "stop");
      for (Process p : pools) {
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      }
      for (Process p : nodes.values()) {
        p.destroy();
      }
      for (Process p : nodes.values()) {
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      }
    }
  }

  private static String seconds(long since) {
    return String.format("%.1f s", (System.nanoTime() - since) / 1e9);
  }

  private void startNode(Path dir, String id) throws IOException {
    Process p = new ProcessBuilder(java(), "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-cp", classPath(), "dev.ration.cli.RationCli", "server",
        "--config", dir.resolve(id + ".yaml").toString(), "--data-dir", dir.resolve("data/" + id).toString())
        .directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(id + ".log").toFile())).start();
    nodes.put(id, p);
  }

  private void awaitReady(HttpClient http, Path dir, String id, int adminPort) {
    HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/ready"))
        .timeout(Duration.ofSeconds(2)).build();
    // At most 180 s: real JVMs start, elect and warm up slowly on a busy 2-core machine.
    Waits.upTo(Duration.ofSeconds(180)).every(Duration.ofMillis(200)).until(id + " is ready", () -> {
      Process p = nodes.get(id);
      if (!p.isAlive()) {
        fail(id + " exited with " + p.exitValue() + ":\n" + Files.readString(dir.resolve(id + ".log")));
      }
      try {
        return http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode();
      } catch (IOException e) {
        return -1;
      }
    }, code -> code == 200);
  }

  private void assertAlive(Path dir) throws IOException {
    for (int i = 0; i < pools.size(); i++) {
      if (!pools.get(i).isAlive()) {
        fail("pool-" + i + " exited with " + pools.get(i).exitValue() + ":\n"
            + Files.readString(dir.resolve("pool-" + i + ".log")));
      }
    }
  }

  private static long startsIn(Path out) {
    try {
      return Files.exists(out) ? Files.readAllLines(out, StandardCharsets.UTF_8).stream()
          .filter(l -> l.startsWith("S ")).count() : 0;
    } catch (IOException e) {
      return 0;
    }
  }

  private static long totalStarts(List<Path> outs) {
    return outs.stream().mapToLong(PoolRollingRestartTest::startsIn).sum();
  }
}
