package dev.ration.cli.e2e;

import dev.ration.server.tls.TestCertificates;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ration.testkit.FreePorts;
import dev.ration.testkit.Waits;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A three-node cluster of real `ration server` processes started through a given launcher
 * (bin/ration of a source checkout or of an unpacked release), on free loopback ports, with its
 * configuration, data and logs under a work directory the caller owns.
 *
 * <p>The node configurations are the shipped config/cluster-3 files with every address moved to
 * a free port, so the cluster never collides with one started by hand or by another test. {@link
 * #close} stops exactly the processes this object started (by pid: TERM, then KILL after a
 * bound) and nothing else.
 */
final class ProcessCluster implements AutoCloseable {
  static final List<String> IDS = List.of("n1", "n2", "n3");
  private static final Pattern ADDRESS = Pattern.compile("(raft|client|admin): 127\\.0\\.0\\.1:(\\d+)");

  final Path launcher;
  final Path workDir;
  /** Node id → client, raft and admin address. */
  final Map<String, Map<String, String>> addresses = new LinkedHashMap<>();
  private final Map<String, Process> processes = new LinkedHashMap<>();
  private int cliCalls;
  private final dev.ration.server.tls.DevCertificates.Issued ca;

  /**
   * Writes the three node configurations (from {@code configDir}'s n1..n3.yaml) under {@code
   * workDir}/conf with fresh ports; nothing runs yet.
   */
  ProcessCluster(Path launcher, Path configDir, Path workDir) throws IOException {
    this.launcher = launcher;
    this.workDir = workDir;
    Map<String, String> portMap = new LinkedHashMap<>();
    Files.createDirectories(workDir.resolve("conf"));
    for (String id : IDS) {
      String text = Files.readString(configDir.resolve(id + ".yaml"), StandardCharsets.UTF_8);
      Matcher m = ADDRESS.matcher(text);
      StringBuilder out = new StringBuilder();
      while (m.find()) {
        String port = portMap.computeIfAbsent(m.group(2), p -> Integer.toString(FreePorts.next()));
        m.appendReplacement(out, m.group(1) + ": 127.0.0.1:" + port);
      }
      m.appendTail(out);
      Files.writeString(workDir.resolve("conf/" + id + ".yaml"), out.toString(), StandardCharsets.UTF_8);
      for (String line : out.toString().split("\n")) {
        Matcher peer = Pattern.compile("\\{ *id: *(n\\d)").matcher(line);
        if (peer.find()) {
          Map<String, String> roles = new LinkedHashMap<>();
          Matcher a = ADDRESS.matcher(line);
          while (a.find()) {
            roles.put(a.group(1), "127.0.0.1:" + a.group(2));
          }
          addresses.put(peer.group(1), roles);
        }
      }
    }
    assertEquals(IDS.size(), addresses.size(), "peers found in " + configDir + ": " + addresses);
    // The shipped configurations run with TLS and read ${RATION_CERTS_DIR}: give the nodes and
    // the CLI their own development certificates, as scripts/cluster.sh would.
    ca = TestCertificates.devSet(certsDir(), IDS);
  }

  /**
   * A configuration for newcomer {@code id}: n3's with the node's own id, fresh ports and its
   * own node certificate of this cluster's CA; start it with {@link #startJoining}.
   */
  void addNodeConfig(String id) throws IOException {
    String text = Files.readString(workDir.resolve("conf/n3.yaml"), StandardCharsets.UTF_8);
    String raft = "127.0.0.1:" + FreePorts.next();
    String client = "127.0.0.1:" + FreePorts.next();
    String admin = "127.0.0.1:" + FreePorts.next();
    String n3Peer = text.lines().filter(l -> l.contains("{ id: n3")).findFirst().orElseThrow();
    text = text.replace("  id: n3\n", "  id: " + id + "\n").replace("node.n3.", "node." + id + ".")
        .replace(n3Peer + "\n", n3Peer + "\n    - { id: " + id + ", raft: " + raft + ", client: "
            + client + ", admin: " + admin + " }\n");
    Files.writeString(workDir.resolve("conf/" + id + ".yaml"), text, StandardCharsets.UTF_8);
    addresses.put(id, new LinkedHashMap<>(Map.of("raft", raft, "client", client, "admin", admin)));
    dev.ration.server.tls.DevCertificates.write(certsDir(), "node." + id,
        TestCertificates.node(ca, id, 30), true);
  }

  /** Starts node {@code id} as a newcomer (`--join`), on whatever its data directory holds. */
  void startJoining(String id, Path cwd) throws IOException {
    startNode(id, launcher, cwd, Map.of(), "--join");
  }

  /** Deletes node {@code id}'s data directory (the node must be stopped). */
  void wipe(String id) throws IOException {
    Path data = workDir.resolve("data/" + id);
    if (Files.exists(data)) {
      try (java.util.stream.Stream<Path> all = Files.walk(data)) {
        for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }

  /** Whether node {@code id}'s process runs. */
  boolean alive(String id) {
    Process p = processes.get(id);
    return p != null && p.isAlive();
  }

  Path certsDir() {
    return workDir.resolve("certs");
  }

  /** An SSL context trusting this cluster's CA, for HTTPS to the admin ports. */
  javax.net.ssl.SSLContext adminTls() {
    return TestCertificates.trusting(certsDir().resolve("ca.crt"));
  }

  /**
   * Starts every node with the working directory {@code cwd} and the extra environment {@code
   * envOf.apply(id)}; each logs to workDir/nI.log.
   */
  void start(Path cwd, java.util.function.Function<String, Map<String, String>> envOf) throws IOException {
    for (String id : IDS) {
      startNode(id, launcher, cwd, envOf.apply(id));
    }
  }

  /**
   * Starts node {@code id} through {@code nodeLauncher} (this cluster's or another release's)
   * on its data directory; its output is appended to workDir/ID.log, so a restarted node's log
   * follows the earlier run's.
   */
  void startNode(String id, Path nodeLauncher, Path cwd, Map<String, String> env, String... extra)
      throws IOException {
    Process running = processes.get(id);
    if (running != null && running.isAlive()) {
      throw new IllegalStateException(id + " is already running (pid " + running.pid() + ")");
    }
    Path data = workDir.resolve("data/" + id);
    Files.createDirectories(data);
    List<String> command = new ArrayList<>(List.of(nodeLauncher.toString(), "server", "--config",
        workDir.resolve("conf/" + id + ".yaml").toString(), "--data-dir", data.toString()));
    command.addAll(List.of(extra));
    ProcessBuilder pb = new ProcessBuilder(command)
        .directory(cwd.toFile())
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(workDir.resolve(id + ".log").toFile()));
    pb.environment().put("RATION_JAVA_OPTS", "-Xmx256m -XX:+UseSerialGC");
    pb.environment().put("RATION_CERTS_DIR", certsDir().toString());
    pb.environment().put("RATION_HELPER", "off");
    pb.environment().putAll(env);
    processes.put(id, pb.start());
  }

  /** Stops node {@code id} as an operator would (TERM; KILL only after 30 s); returns its exit code. */
  int stopNode(String id) throws InterruptedException {
    Process p = processes.get(id);
    p.destroy();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
    return p.exitValue();
  }

  String servers() {
    List<String> list = new ArrayList<>();
    addresses.values().forEach(r -> list.add(r.get("client")));
    return String.join(",", list);
  }

  String admin(String id) {
    return addresses.get(id).get("admin");
  }

  long pid(String id) {
    return processes.get(id).pid();
  }

  /** A finished launcher run. */
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

  /** Runs the launcher with {@code args} from {@code cwd}, bounded by 90 s. */
  Cli cli(Path cwd, String... args) throws Exception {
    return cli(cwd, Map.of(), args);
  }

  /** As above, with {@code env} added to (or replacing) the launcher's environment. */
  Cli cli(Path cwd, Map<String, String> env, String... args) throws Exception {
    int n = ++cliCalls;
    Path out = workDir.resolve("cli-" + n + ".out");
    Path err = workDir.resolve("cli-" + n + ".err");
    List<String> command = new ArrayList<>();
    command.add(launcher.toString());
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile())
        .redirectOutput(out.toFile()).redirectError(err.toFile());
    // A short-lived CLI JVM: C1 only starts faster on a busy 2-core machine. Its class-data
    // sharing archive goes to the work directory, not the user's cache.
    pb.environment().put("RATION_JAVA_OPTS", "-Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
    pb.environment().put("RATION_CDS_DIR", workDir.resolve("cds").toString());
    pb.environment().put("RATION_CERTS_DIR", certsDir().toString());
    pb.environment().put("RATION_HELPER", "off");
    pb.environment().putAll(env);
    Process p = pb.start();
    if (!p.waitFor(90, TimeUnit.SECONDS)) {
      // The launcher's first run keeps its JVM as a child (to move the CDS archive): kill both.
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
      fail("ration " + String.join(" ", args) + " did not finish within 90s");
    }
    return new Cli(List.of(args), p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  /**
   * Polls `cluster status --output json` (every 500 ms, at most 180 s: real processes elect and
   * warm up, slowly on a busy 2-core machine, and there is no clock to inject) until a reachable
   * node leads; returns its row. Fails
   * at once if a node process has exited, with its log.
   */
  Map<String, Object> awaitLeader(Path cwd) {
    Cli status = Waits.upTo(Duration.ofSeconds(180)).every(Duration.ofMillis(500)).until("a leader",
        () -> {
          assertAllAlive();
          try {
            return cli(cwd, "cluster", "status", "--servers", servers(), "--output", "json", "--timeout", "5s");
          } catch (AssertionError slow) {
            // A status call that outlived its bound on a starved machine: ask again.
            return new Cli(List.of("cluster", "status"), -1, "", slow.getMessage());
          }
        },
        c -> leaderRow(c).isPresent());
    return leaderRow(status).orElseThrow();
  }

  static Optional<Map<String, Object>> leaderRow(Cli status) {
    if (status.exitCode() != 0) {
      return Optional.empty();
    }
    return EndToEndIT.list(status.json().get("servers")).stream().map(EndToEndIT::map)
        .filter(r -> Boolean.TRUE.equals(r.get("reachable")) && "LEADER".equals(r.get("role"))).findFirst();
  }

  void assertAllAlive() throws IOException {
    assertAlive(processes.keySet());
  }

  /** Fails, with its log, if any of {@code ids} has exited. */
  void assertAlive(java.util.Collection<String> ids) throws IOException {
    for (Map.Entry<String, Process> e : processes.entrySet()) {
      if (!ids.contains(e.getKey())) {
        continue;
      }
      if (!e.getValue().isAlive()) {
        fail(e.getKey() + " exited with " + e.getValue().exitValue() + ":\n"
            + Files.readString(workDir.resolve(e.getKey() + ".log")));
      }
    }
  }

  String log(String id) throws IOException {
    return Files.readString(workDir.resolve(id + ".log"), StandardCharsets.UTF_8);
  }

  /** TERM to each started pid, then KILL to any still alive after 30 s. */
  @Override
  public void close() throws InterruptedException {
    for (Process p : processes.values()) {
      p.destroy();
    }
    for (Process p : processes.values()) {
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  /** Whether each started process has exited (after {@link #close}). */
  boolean allExited() {
    return processes.values().stream().noneMatch(Process::isAlive);
  }
}
