package dev.ration.cli.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ration.testkit.Waits;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The product as an operator runs it: `scripts/cluster.sh start` launches three real `bin/ration
 * server` processes (config/cluster-3, run directory target/e2e-run), and every step goes through
 * `bin/ration ... --output json`, asserting on parsed JSON fields.
 *
 * <p>Goal: the ledger never over-grants, and a leader crash (kill -9) loses no granted lease:
 * after a new leader is elected every lease is still listed and counted, and a new acquire is
 * still refused with LIMIT_EXHAUSTED (exit code 2).
 *
 * <p>The cluster uses config/cluster-3's fixed loopback ports (7101-7103 client, 7201-7203 raft,
 * 7301-7303 admin), so it refuses to run while anything else listens there (e.g. a cluster
 * started by hand); it stops only the pids it started (its run directory's pid files), in a
 * finally block. Every wait is bounded.
 */
class EndToEndIT {
  static final List<String> CLIENT_PORTS = List.of("127.0.0.1:7101", "127.0.0.1:7102", "127.0.0.1:7103");
  static final String SERVERS = String.join(",", CLIENT_PORTS);
  static final String TENANT = "e2e";
  static final String RESOURCE = "api";
  static final long RATE = 100;
  static final long BURST = 100;
  static final long DEMAND = 40;
  static final Waits STATUS_POLL = Waits.upTo(Duration.ofSeconds(60)).every(Duration.ofMillis(500));

  final Path root = findRoot();
  final Path runDir = root.resolve("cli/target/e2e-run");
  final Path cliDir = root.resolve("cli/target/e2e-cli");
  /**
   * The certificates cluster.sh creates and the CLI finds, kept out of the user's
   * ~/.ration/certs: the script and the CLI both read RATION_CERTS_DIR.
   */
  final Path certsDir = root.resolve("cli/target/e2e-certs");
  int cliCalls;

  /** A finished `bin/ration` invocation. */
  record Cli(List<String> args, int exitCode, String out, String err) {
    Map<String, Object> json() {
      try {
        return TestJson.object(out.trim());
      } catch (IllegalArgumentException e) {
        throw new AssertionError("not JSON from " + this, e);
      }
    }

    @Override
    public String toString() {
      return "ration " + String.join(" ", args) + " -> exit " + exitCode + "\nstdout: " + out + "\nstderr: " + err;
    }
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void leaderCrashLosesNoGrantAndNeverOverGrants() throws Exception {
    assertTrue(Files.isExecutable(root.resolve("bin/ration")), "bin/ration missing under " + root);
    assertTrue(Files.isRegularFile(root.resolve("cli/target/ration-cli.jar")), "package the CLI first");
    for (String a : CLIENT_PORTS) {
      assertFalse(listening(a), "something already listens on " + a
          + ": stop the other cluster (scripts/cluster.sh stop) before running EndToEndIT");
    }
    script("stop"); // A previous run's leftovers (only pids recorded in our run directory).
    deleteTree(runDir);
    deleteTree(cliDir);
    Files.createDirectories(cliDir);
    try {
      Script started = script("start");
      assertEquals(0, started.exitCode(), "cluster.sh start failed:\n" + started.output());

      // A limit, then acquires from three holders until the ledger says no.
      Cli set = cli(0, "limit", "set", "--tenant", TENANT, "--resource", RESOURCE, "--rate", "" + RATE,
          "--burst", "" + BURST, "--lease-duration", "60s", "--grace", "5s");
      assertEquals("SUCCESS", set.json().get("outcome"), set.toString());

      List<Map<String, Object>> granted = new ArrayList<>();
      Cli refused = null;
      String[] holders = {"region-a", "region-b", "region-c"};
      for (int attempt = 0; attempt < 12 && refused == null; attempt++) {
        String holder = holders[attempt % holders.length];
        Cli acquire = cli(-1, "lease", "acquire", "--tenant", TENANT, "--resource", RESOURCE, "--holder", holder,
            "--rate", "" + DEMAND, "--burst", "" + DEMAND);
        Map<String, Object> reply = acquire.json();
        if (acquire.exitCode() == 0) {
          assertEquals("SUCCESS", reply.get("outcome"), acquire.toString());
          granted.add(map(reply.get("lease")));
        } else {
          assertEquals(2, acquire.exitCode(), acquire.toString());
          assertEquals("LIMIT_EXHAUSTED", reply.get("outcome"), acquire.toString());
          assertFalse(reply.containsKey("lease"), "a refusal carries no lease: " + acquire);
          refused = acquire;
        }
      }
      assertTrue(refused != null, "the ledger never refused after " + granted.size() + " grants: " + granted);
      Set<String> grantedHolders = new HashSet<>();
      long rateSum = 0;
      long burstSum = 0;
      for (Map<String, Object> lease : granted) {
        grantedHolders.add((String) lease.get("holder"));
        rateSum += num(lease.get("rateShare"));
        burstSum += num(lease.get("burstShare"));
        assertTrue(num(lease.get("rateShare")) > 0, "granted lease with a zero share: " + lease);
      }
      assertEquals(Set.of(holders), grantedHolders, "every holder got a lease before the refusal");
      assertTrue(rateSum <= RATE && burstSum <= BURST,
          "over-grant: rate " + rateSum + " of " + RATE + ", burst " + burstSum + " of " + BURST);
      assertLedgerHolds(granted, rateSum, burstSum);

      // Kill -9 the leader, found from `cluster status` and the run directory's pid file.
      Map<String, Object> leader = awaitLeader(Optional.empty());
      String leaderId = (String) leader.get("id");
      long oldTerm = num(leader.get("term"));
      long pid = Long.parseLong(Files.readString(runDir.resolve(leaderId + ".pid")).trim());
      ProcessHandle victim = ProcessHandle.of(pid).orElseThrow(() -> new AssertionError("leader pid " + pid + " not alive"));
      String cmd = victim.info().commandLine().orElse("");
      assertTrue(cmd.contains("ration-cli.jar") && cmd.contains(runDir.resolve(leaderId).toString()),
          "pid " + pid + " is not our node " + leaderId + ": " + cmd);
      assertTrue(victim.destroyForcibly(), "could not signal pid " + pid);
      victim.onExit().get(20, TimeUnit.SECONDS);

      Map<String, Object> newLeader = awaitLeader(Optional.of(leaderId));
      assertNotEquals(leaderId, newLeader.get("id"));
      assertTrue(num(newLeader.get("term")) > oldTerm, "new term " + newLeader.get("term") + " after " + oldTerm);

      // Nothing granted was lost, and the ledger still refuses to over-grant.
      assertLedgerHolds(granted, rateSum, burstSum);
      Cli again = cli(-1, "lease", "acquire", "--tenant", TENANT, "--resource", RESOURCE, "--holder", "region-d",
          "--rate", "" + DEMAND, "--burst", "" + DEMAND);
      assertEquals(2, again.exitCode(), again.toString());
      assertEquals("LIMIT_EXHAUSTED", again.json().get("outcome"), again.toString());

      // Restart the killed node on its own directory (`start` starts only the nodes that are not
      // running). It died without flushing (RocksDB keeps no WAL of its own), so it opens at its
      // last flush and replays the rest from its Raft log, then catches up with the leader.
      Script restarted = script("start");
      assertEquals(0, restarted.exitCode(), "restart of " + leaderId + " failed:\n" + restarted.output());
      long leaderApplied = num(awaitLeader(Optional.empty()).get("appliedIndex"));
      awaitApplied(leaderId, leaderApplied);
      assertLedgerHolds(granted, rateSum, burstSum);

      Script stopped = script("stop");
      assertEquals(0, stopped.exitCode(), "cluster.sh stop failed:\n" + stopped.output());
      for (String id : List.of("n1", "n2", "n3")) {
        assertFalse(Files.exists(runDir.resolve(id + ".pid")), "pid file of " + id + " left after stop");
      }
    } finally {
      script("stop");
      killLeftovers();
    }
  }

  /**
   * A port of the config already taken (another cluster on the same ports, say): start must
   * refuse before launching anything, or its health checks would pass against the other
   * process while our node exits on bind.
   */
  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void startRefusesWhenAPortIsTaken() throws Exception {
    String admin = "127.0.0.1:7302"; // n2's admin address in config/cluster-3
    assertFalse(listening(admin), "something already listens on " + admin);
    script("stop");
    deleteTree(runDir);
    try (java.net.ServerSocket taken = new java.net.ServerSocket()) {
      taken.bind(new InetSocketAddress("127.0.0.1", 7302));
      Script started = script("start");
      assertEquals(1, started.exitCode(), started.output());
      assertTrue(started.output().contains("n2 admin address 127.0.0.1:7302 is already in use"),
          started.output());
      for (String id : List.of("n1", "n2", "n3")) {
        assertFalse(Files.exists(runDir.resolve(id + ".pid")), id + " was started:\n" + started.output());
      }
    } finally {
      script("stop");
    }
  }

  /** `limit get` counts exactly the granted shares, and `lease list` lists every granted lease. */
  void assertLedgerHolds(List<Map<String, Object>> granted, long rateSum, long burstSum) throws Exception {
    Cli get = cli(0, "limit", "get", "--tenant", TENANT, "--resource", RESOURCE);
    Map<String, Object> limit = map(get.json().get("limit"));
    assertEquals(granted.size(), num(limit.get("leases")), get.toString());
    assertEquals(rateSum, num(limit.get("countedRate")), get.toString());
    assertEquals(burstSum, num(limit.get("countedBurst")), get.toString());
    assertEquals(RATE, num(limit.get("ratePerSecond")), get.toString());

    Cli list = cli(0, "lease", "list", "--tenant", TENANT, "--resource", RESOURCE);
    List<Object> leases = list(list.json().get("leases"));
    assertEquals(granted.size(), leases.size(), list.toString());
    for (Map<String, Object> g : granted) {
      Map<String, Object> listed = leases.stream().map(EndToEndIT::map)
          .filter(l -> num(l.get("leaseId")) == num(g.get("leaseId"))).findFirst()
          .orElseThrow(() -> new AssertionError("lease " + g.get("leaseId") + " missing from " + list));
      assertEquals(g.get("holder"), listed.get("holder"));
      assertEquals(num(g.get("rateShare")), num(listed.get("rateShare")), "lease " + g.get("leaseId"));
      assertEquals(num(g.get("burstShare")), num(listed.get("burstShare")), "lease " + g.get("leaseId"));
      assertEquals(num(g.get("rateShare")), num(listed.get("countedRate")), "lease " + g.get("leaseId") + " still counted");
    }
  }

  /** Polls `cluster status` (bounded) until a reachable server leads, other than {@code notId}. */
  Map<String, Object> awaitLeader(Optional<String> notId) {
    return awaitServer("a leader" + notId.map(id -> " other than " + id).orElse(""),
        r -> "LEADER".equals(r.get("role")) && (notId.isEmpty() || !notId.get().equals(r.get("id"))));
  }

  /** Waits until node {@code id} is reachable and has applied at least {@code index}. */
  void awaitApplied(String id, long index) {
    awaitServer(id + " at applied index " + index, r -> id.equals(r.get("id"))
        && r.get("appliedIndex") instanceof Number n && n.longValue() >= index);
  }

  /**
   * Polls `cluster status` every 500 ms until a reachable server's row matches, within 60 s: the
   * cluster is real processes (elections, catch-up), so there is no clock to inject, only a
   * deadline. A timeout shows the last `cluster status` run.
   */
  Map<String, Object> awaitServer(String what, Predicate<Map<String, Object>> match) {
    Cli status = STATUS_POLL.until(what, () -> cli(-1, "cluster", "status", "--timeout", "2s"),
        c -> matchingRow(c, match).isPresent());
    return matchingRow(status, match).orElseThrow();
  }

  /** The first reachable server row of a successful `cluster status` that matches. */
  static Optional<Map<String, Object>> matchingRow(Cli status, Predicate<Map<String, Object>> match) {
    if (status.exitCode() != 0) {
      return Optional.empty();
    }
    return list(status.json().get("servers")).stream().map(EndToEndIT::map)
        .filter(r -> Boolean.TRUE.equals(r.get("reachable")) && match.test(r)).findFirst();
  }

  /** Runs bin/ration with --servers, --output json; {@code expectedExit} >= 0 is asserted. */
  Cli cli(int expectedExit, String... args) throws Exception {
    List<String> full = new ArrayList<>(List.of(args));
    full.addAll(List.of("--servers", SERVERS, "--output", "json"));
    if (!full.contains("--timeout")) {
      full.addAll(List.of("--timeout", "10s"));
    }
    List<String> command = new ArrayList<>();
    command.add(root.resolve("bin/ration").toString());
    command.addAll(full);
    int n = ++cliCalls;
    Path out = cliDir.resolve(n + ".out");
    Path err = cliDir.resolve(n + ".err");
    ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
    // A short-lived CLI JVM: C1 only starts faster on a busy 2-core machine.
    pb.environment().put("RATION_JAVA_OPTS", "-Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
    pb.environment().put("RATION_CERTS_DIR", certsDir.toString());
    pb.environment().put("RATION_HELPER", "off");
    Process p = pb.start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
      fail("ration " + String.join(" ", full) + " did not finish within 60s");
    }
    Cli c = new Cli(full, p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
    if (expectedExit >= 0) {
      assertEquals(expectedExit, c.exitCode(), c.toString());
    }
    return c;
  }

  record Script(int exitCode, String output) {}

  Script script(String command) throws Exception {
    Files.createDirectories(runDir.getParent());
    Path log = runDir.getParent().resolve("e2e-cluster-" + command + ".log");
    ProcessBuilder pb = new ProcessBuilder(root.resolve("scripts/cluster.sh").toString(), command,
        "--run-dir", runDir.toString()).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().put("RATION_START_TIMEOUT", "90");
    pb.environment().put("RATION_STOP_TIMEOUT", "20");
    pb.environment().remove("RATION_JAVA_OPTS");
    pb.environment().put("RATION_CERTS_DIR", certsDir.toString());
    pb.environment().put("RATION_HELPER", "off");
    Process p = pb.start();
    if (!p.waitFor(150, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
      return new Script(-1, "timed out; " + Files.readString(log));
    }
    return new Script(p.exitValue(), Files.readString(log));
  }

  /** After stop: any node of OUR run directory still alive is killed by its recorded pid. */
  void killLeftovers() throws IOException, InterruptedException {
    for (String id : List.of("n1", "n2", "n3")) {
      Path pidFile = runDir.resolve(id + ".pid");
      if (!Files.exists(pidFile)) {
        continue;
      }
      String text = Files.readString(pidFile).trim();
      if (!text.matches("\\d+")) {
        continue;
      }
      Optional<ProcessHandle> h = ProcessHandle.of(Long.parseLong(text));
      if (h.isPresent() && h.get().info().commandLine().orElse("").contains(runDir.resolve(id).toString())) {
        h.get().destroyForcibly();
        h.get().onExit().completeOnTimeout(null, 10, TimeUnit.SECONDS).join();
      }
    }
  }

  static boolean listening(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1))), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  static Path findRoot() {
    Path p = Paths.get("").toAbsolutePath();
    for (int i = 0; i < 4 && p != null; i++, p = p.getParent()) {
      if (Files.exists(p.resolve("scripts/cluster.sh")) && Files.exists(p.resolve("cli/pom.xml"))) {
        return p;
      }
    }
    throw new AssertionError("repository root (with scripts/cluster.sh) not found above " + Paths.get("").toAbsolutePath());
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object o) {
    if (!(o instanceof Map)) {
      throw new AssertionError("expected a JSON object, got " + o);
    }
    return (Map<String, Object>) o;
  }

  @SuppressWarnings("unchecked")
  static List<Object> list(Object o) {
    if (!(o instanceof List)) {
      throw new AssertionError("expected a JSON array, got " + o);
    }
    return (List<Object>) o;
  }

  static long num(Object o) {
    if (!(o instanceof Long l)) {
      throw new AssertionError("expected a JSON integer, got " + o);
    }
    return l;
  }
}
