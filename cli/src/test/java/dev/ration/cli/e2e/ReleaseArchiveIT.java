package dev.ration.cli.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ration.server.BuildInfo;
import dev.ration.testkit.FreePorts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The release archive as a new operator installs it: an empty directory holding only the
 * archive `mvn package` wrote, and the command blocks of docs/OPERATIONS.md's "Installing a
 * release" and "Running under systemd", read from the page and run in order, ending with a
 * `cluster status` that shows a leader. Doc and test cannot drift: a command the page gains or
 * loses is run or not run here.
 *
 * <p>The host is simulated under a temporary root, and these are the only liberties taken with
 * the commands: {@code sudo} is dropped; {@code /opt/}, {@code /etc/} and {@code /var/} are moved
 * under the root; the service account {@code ration} becomes the user running the test (so
 * {@code useradd} is skipped); {@code systemctl enable --now ration@ID} starts each node as the
 * installed unit file says (its ExecStart, Environment and EnvironmentFile, with {@code %i} and
 * {@code $VAR} expanded as systemd does), its output standing in for the journal, and other
 * {@code systemctl} and {@code journalctl} calls are skipped. The installed node configurations
 * get free loopback ports (and the CLI RATION_SERVERS to match) so the test never collides
 * with another cluster, and their data directory moves under the root like every other path. A
 * line commented "repeat until a row says X" runs until its output contains X.
 *
 * <p>Also checked: the archive is complete (launcher, every jar, example configs, systemd unit,
 * LICENSE, NOTICE), `ration --version` names this build, the unit file passes {@code
 * systemd-analyze verify} where that exists, nothing is written inside the release directory,
 * and every node stops gracefully on SIGTERM. Only the node processes started here are stopped.
 */
class ReleaseArchiveIT {
  private static final Pattern REPEAT_UNTIL = Pattern.compile("#\\s*repeat until a row says (\\S+)\\s*$");
  private static final Pattern DOC_ARCHIVE = Pattern.compile("ration-(\\d[^\\s/]*?)\\.tar\\.gz");
  private static final Pattern SUDO = Pattern.compile("(^|[|;&]\\s*)sudo\\s+");
  private static final Pattern HOST_PATH = Pattern.compile("(?<![\\w.~/-])/(opt|etc|var)(?=[/\\s\"']|$)");
  private static final Pattern LOOPBACK_PORT = Pattern.compile("127\\.0\\.0\\.1:(\\d+)");

  /** The command lines of every ```sh block of the named "## " sections, in page order. */
  static List<String> commands(String doc, List<String> sections) {
    List<String> lines = new ArrayList<>();
    for (String section : sections) {
      int heading = doc.indexOf("\n## " + section + "\n");
      assertTrue(heading >= 0, "docs/OPERATIONS.md has no '## " + section + "' section");
      int end = doc.indexOf("\n## ", heading + 4);
      String body = doc.substring(heading, end < 0 ? doc.length() : end);
      int open = body.indexOf("\n```sh\n");
      assertTrue(open >= 0, "'" + section + "' has no ```sh block");
      while (open >= 0) {
        int close = body.indexOf("\n```", open + 7);
        for (String line : body.substring(open + 7, close).split("\n")) {
          String t = line.strip();
          if (!t.isEmpty() && !t.startsWith("#")) {
            lines.add(t);
          }
        }
        open = body.indexOf("\n```sh\n", close + 4);
      }
    }
    return lines;
  }

  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES)
  void theOperationsGuideInstallsARunningSecureCluster() throws Exception {
    BuildInfo build = BuildInfo.current();
    Path archive = Paths.get("target", "ration-" + build.version() + ".tar.gz").toAbsolutePath();
    assertTrue(Files.isRegularFile(archive), archive + " missing: run `mvn package` first");
    Path sourceRoot = EndToEndIT.findRoot();
    List<String> doc = commands(Files.readString(sourceRoot.resolve("docs/OPERATIONS.md"), StandardCharsets.UTF_8),
        List.of("Installing a release", "Running under systemd"));

    Path root = Files.createTempDirectory("ration-host-").toRealPath();
    assertFalse(root.startsWith(sourceRoot), root + " is inside the source tree " + sourceRoot);
    Host host = new Host(root, build.version());
    try {
      host.run(doc, archive);

      Path release = root.resolve("opt/ration-" + build.version());
      checkArchiveContents(release);
      // The class-data archive recorded at `mvn package` maps in the unpacked release, where
      // the build never was: RATION_CDS=require makes the JVM refuse to start otherwise.
      Host.Result shipped = host.shell("RATION_CDS=require " + release.resolve("bin/ration") + " --version");
      assertEquals(0, shipped.exit(), "the shipped class-data archive maps: " + shipped);
      assertTrue(shipped.out().startsWith("ration " + build.version()), shipped.out());
      assertEquals(List.of(), host.archivesRecorded(),
          "no per-user archive recorded when the shipped one applies");
      // A direct call (no helper) with the shipped archive reaches the cluster and prints only
      // its answer: the start-time warm-up thread must add nothing to stderr (StartWarmup).
      for (int i = 0; i < 3; i++) {
        Host.Result direct = host.shell("RATION_CDS=require RATION_HELPER=off "
            + release.resolve("bin/ration") + " cluster status --timeout 30s");
        assertEquals(0, direct.exit(), "direct cluster status: " + direct);
        assertTrue(direct.out().contains("LEADER"), "direct cluster status: " + direct);
        // The JVM's own note about the JAVA_TOOL_OPTIONS this test sets is not the CLI's.
        String err = direct.err().lines().filter(l -> !l.startsWith("Picked up JAVA_TOOL_OPTIONS:"))
            .collect(java.util.stream.Collectors.joining("\n"));
        assertEquals("", err, "direct cluster status: " + direct);
      }
      assertEquals(release, root.resolve("opt/ration").toRealPath(), "/opt/ration points at the release");
      assertEquals(host.releaseFiles, host.list(release), "nothing is written inside the release directory");
      for (String id : Host.IDS) {
        try (Stream<Path> data = Files.list(root.resolve("var/lib/ration/" + id))) {
          assertTrue(data.findAny().isPresent(), id + "'s data is in /var/lib/ration/" + id);
        }
      }

      host.stopNodes();
      for (String id : Host.IDS) {
        // The shutdown hook logs shutdown_complete before the JVM exits; the main thread's
        // later server_stopped line may never be scheduled before the exit.
        assertTrue(host.journal(id).contains("event=shutdown_complete"), id + " did not stop gracefully:\n" + host.journal(id));
      }
    } finally {
      host.killNodes();
      try (Stream<Path> walk = Files.walk(root)) {
        for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  private static void checkArchiveContents(Path home) throws IOException {
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
  }

  /** A fresh machine under {@code root}, on which the guide's commands run. */
  static final class Host {
    static final List<String> IDS = List.of("n1", "n2", "n3");

    final Path root;
    final String version;
    final Path download;
    final Path operatorHome;
    final Map<String, String> cliEnv = new LinkedHashMap<>();
    final Map<String, Process> nodes = new LinkedHashMap<>();
    List<String> releaseFiles;
    private String docVersion;
    private String uid;
    private String gid;
    private int n;

    Host(Path root, String version) throws IOException {
      this.root = root;
      this.version = version;
      // What any Linux host has; the archive is the only thing in the operator's directory.
      for (String d : List.of("opt", "etc/systemd/system", "var/lib", "journal")) {
        Files.createDirectories(root.resolve(d));
      }
      download = Files.createDirectories(root.resolve("download"));
      operatorHome = Files.createDirectories(root.resolve("home/operator"));
      cliEnv.put("PATH", System.getenv("PATH"));
      cliEnv.put("HOME", operatorHome.toString());
      // The JVM takes its home directory from the user database, not $HOME: for the CLI's
      // ~/.ration/certs to be the simulated operator's, say it to the JVM too.
      cliEnv.put("JAVA_TOOL_OPTIONS", "-Duser.home=" + operatorHome);
      // Scripts should leave no process behind (docs/CLI.md, "The resident helper").
      cliEnv.put("RATION_HELPER", "off");
    }

    void run(List<String> commands, Path archive) throws Exception {
      uid = output("id", "-u");
      gid = output("id", "-g");
      Matcher named = DOC_ARCHIVE.matcher(String.join("\n", commands));
      assertTrue(named.find(), "the guide names the archive it unpacks: " + commands);
      docVersion = named.group(1);
      Files.copy(archive, download.resolve(archive.getFileName()));
      assertTrue(commands.get(commands.size() - 1).contains("cluster status"),
          "the guide ends with a cluster status: " + commands);
      boolean versionChecked = false;
      for (String line : commands) {
        String command = translate(line);
        if (command.isEmpty()) {
          continue;
        }
        if (command.startsWith("systemctl ") || command.startsWith("journalctl ")) {
          systemctl(command);
          continue;
        }
        Matcher repeat = REPEAT_UNTIL.matcher(line);
        Result r = repeat.find() ? until(command, repeat.group(1)) : shell(command);
        assertEquals(0, r.exit(), r.toString());
        if (command.endsWith("bin/ration --version")) {
          assertTrue(r.out().startsWith("ration " + version + " ("), r.toString());
          BuildInfo build = BuildInfo.current();
          if (!build.commit().equals(BuildInfo.UNKNOWN)) {
            assertTrue(r.out().contains("commit " + build.shortCommit()), r.toString());
          }
          versionChecked = true;
        }
        if (command.contains("tar -xzf")) {
          releaseFiles = list(root.resolve("opt/ration-" + version));
          try (Stream<Path> top = Files.list(root.resolve("opt"))) {
            assertEquals(List.of(root.resolve("opt/ration-" + version)), top.toList(), "one top directory in the archive");
          }
        }
      }
      assertTrue(versionChecked, "the guide checks the installed version");
      assertTrue(!nodes.isEmpty(), "the guide starts the nodes");
    }

    /** The line as run on the simulated host; empty for a line this host skips. */
    String translate(String line) {
      String c = line.replace(docVersion, version);
      c = SUDO.matcher(c).replaceAll("$1");
      if (c.startsWith("useradd ")) {
        return "";
      }
      c = c.replace("-o ration -g ration", "-o " + uid + " -g " + gid).replace("chgrp ration ", "chgrp " + gid + " ");
      return onHost(c);
    }

    String onHost(String text) {
      return HOST_PATH.matcher(text).replaceAll(Matcher.quoteReplacement(root.toString()) + "/$1");
    }

    private void systemctl(String command) throws Exception {
      List<String> words = List.of(command.split("\\s+"));
      if (words.get(0).equals("systemctl") && words.contains("daemon-reload")) {
        verifyUnit();
      } else if (words.get(0).equals("systemctl") && words.contains("enable") && words.contains("--now")) {
        isolate();
        for (String w : words) {
          if (w.startsWith("ration@")) {
            start(w.substring("ration@".length()));
          }
        }
      }
    }

    Path unitFile() {
      return root.resolve("etc/systemd/system/ration@.service");
    }

    /** The installed unit parses, and what it runs exists: {@code systemd-analyze verify}, if there. */
    private void verifyUnit() throws Exception {
      String unit = Files.readString(unitFile(), StandardCharsets.UTF_8);
      assertTrue(unit.contains("$RATION_JOIN"), "the unit passes $RATION_JOIN:\n" + unit);
      assertTrue(unit.contains("RATION_CERTS_DIR="), "the unit sets RATION_CERTS_DIR:\n" + unit);
      List<String> join = execStart("n4", Map.of("RATION_JOIN", "--join"));
      assertEquals("--join", join.get(join.size() - 1), "RATION_JOIN=--join adds --join: " + join);
      if (shell("command -v systemd-analyze").exit() != 0) {
        return;
      }
      Path dir = Files.createDirectories(root.resolve("verify"));
      Files.writeString(dir.resolve("ration@.service"), onHost(unit), StandardCharsets.UTF_8);
      Result r = shell("systemd-analyze verify " + dir.resolve("ration@n1.service"));
      assertEquals(0, r.exit(), "systemd-analyze verify of the shipped unit:\n" + r);
    }

    /**
     * Moves the installed configurations to free loopback ports, and their data directories
     * under the root, as the one change this test makes to the files the guide installs.
     */
    private void isolate() throws IOException {
      if (cliEnv.containsKey("RATION_SERVERS")) {
        return;
      }
      Map<String, String> ports = new LinkedHashMap<>();
      List<String> clients = new ArrayList<>();
      for (String id : IDS) {
        Path f = root.resolve("etc/ration/" + id + ".yaml");
        String text = onHost(Files.readString(f, StandardCharsets.UTF_8));
        Matcher m = LOOPBACK_PORT.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
          String port = ports.computeIfAbsent(m.group(1), p -> Integer.toString(FreePorts.next()));
          m.appendReplacement(out, "127.0.0.1:" + port);
        }
        m.appendTail(out);
        Files.writeString(f, out.toString(), StandardCharsets.UTF_8);
        Matcher client = Pattern.compile("\\{ *id: *" + id + ",.*client: *(127\\.0\\.0\\.1:\\d+)").matcher(out);
        assertTrue(client.find(), id + "'s client address in " + f);
        clients.add(client.group(1));
      }
      cliEnv.put("RATION_SERVERS", String.join(",", clients));
    }

    /** The unit's ExecStart for instance {@code id}, expanded as systemd does, in {@code env}. */
    List<String> execStart(String id, Map<String, String> env) throws IOException {
      String exec = null;
      for (String line : Files.readAllLines(unitFile(), StandardCharsets.UTF_8)) {
        if (line.startsWith("ExecStart=")) {
          exec = line.substring("ExecStart=".length()).replace("%i", id);
        }
      }
      assertTrue(exec != null, "no ExecStart in " + unitFile());
      List<String> args = new ArrayList<>();
      for (String word : exec.strip().split("\\s+")) {
        if (word.matches("\\$[A-Za-z_][A-Za-z0-9_]*")) {
          // Unbraced and alone: split into words, none when unset or empty.
          String v = env.getOrDefault(word.substring(1), "").strip();
          if (!v.isEmpty()) {
            args.addAll(List.of(v.split("\\s+")));
          }
        } else {
          Matcher m = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}").matcher(word);
          args.add(onHost(m.replaceAll(r -> Matcher.quoteReplacement(env.getOrDefault(r.group(1), "")))));
        }
      }
      return args;
    }

    /** The environment the unit gives instance {@code id}: Environment=, then each EnvironmentFile=. */
    Map<String, String> unitEnvironment(String id) throws IOException {
      Map<String, String> env = new LinkedHashMap<>();
      env.put("PATH", System.getenv("PATH"));
      // The service user's home, as useradd --home-dir made it.
      env.put("HOME", root.resolve("var/lib/ration").toString());
      List<String> files = new ArrayList<>();
      for (String line : Files.readAllLines(unitFile(), StandardCharsets.UTF_8)) {
        String l = line.replace("%i", id);
        if (l.startsWith("Environment=")) {
          String kv = l.substring("Environment=".length());
          int eq = kv.indexOf('=');
          env.put(kv.substring(0, eq), onHost(kv.substring(eq + 1)));
        } else if (l.startsWith("EnvironmentFile=")) {
          files.add(l.substring("EnvironmentFile=".length()));
        }
      }
      for (String file : files) {
        boolean optional = file.startsWith("-");
        Path p = Paths.get(onHost(optional ? file.substring(1) : file));
        if (!Files.exists(p)) {
          assertTrue(optional, "the unit needs " + file);
          continue;
        }
        for (String line : Files.readAllLines(p, StandardCharsets.UTF_8)) {
          String t = line.strip();
          int eq = t.indexOf('=');
          if (t.isEmpty() || t.startsWith("#") || eq < 0) {
            continue;
          }
          env.put(t.substring(0, eq).strip(), t.substring(eq + 1).strip().replaceAll("^\"(.*)\"$", "$1"));
        }
      }
      return env;
    }

    private void start(String id) throws IOException {
      Map<String, String> env = unitEnvironment(id);
      List<String> args = execStart(id, env);
      assertTrue(Files.isExecutable(Paths.get(args.get(0))), "ExecStart runs " + args.get(0) + ", which the release has");
      assertFalse(args.contains("--join"), id + " formed the cluster: no --join");
      ProcessBuilder pb = new ProcessBuilder(args).directory(Paths.get("/").toFile())
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(root.resolve("journal/" + id + ".log").toFile()));
      pb.environment().clear();
      pb.environment().putAll(env);
      nodes.put(id, pb.start());
    }

    String journal(String id) throws IOException {
      return Files.readString(root.resolve("journal/" + id + ".log"), StandardCharsets.UTF_8);
    }

    /** `systemctl stop` for each: SIGTERM, a clean stop being exit 0 or 143 (SuccessExitStatus). */
    void stopNodes() throws Exception {
      nodes.values().forEach(Process::destroy);
      for (Map.Entry<String, Process> e : nodes.entrySet()) {
        assertTrue(e.getValue().waitFor(60, TimeUnit.SECONDS), e.getKey() + " did not stop within TimeoutStopSec");
        int code = e.getValue().exitValue();
        assertTrue(code == 0 || code == 143, e.getKey() + " exited " + code + ":\n" + journal(e.getKey()));
      }
    }

    void killNodes() throws InterruptedException {
      for (Process p : nodes.values()) {
        if (p.isAlive()) {
          p.destroy();
          if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
          }
        }
      }
    }

    record Result(String command, int exit, String out, String err) {
      @Override
      public String toString() {
        return command + " -> exit " + exit + "\nstdout: " + out + "\nstderr: " + err;
      }
    }

    /** Class-data archives recorded per user (the cache directory also keeps leader hints). */
    List<String> archivesRecorded() throws IOException {
      Path cache = operatorHome.resolve(".cache/ration");
      if (!Files.isDirectory(cache)) {
        return List.of();
      }
      try (Stream<Path> files = Files.list(cache)) {
        return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".jsa")).sorted().toList();
      }
    }

    Result shell(String command) throws Exception {
      // Never the real host's directories.
      assertFalse(HOST_PATH.matcher(command).find(), "not moved under the test's root: " + command);
      Path out = root.resolve("journal/cmd-" + ++n + ".out");
      Path err = root.resolve("journal/cmd-" + n + ".err");
      ProcessBuilder pb = new ProcessBuilder("bash", "-c", command).directory(download.toFile())
          .redirectOutput(out.toFile()).redirectError(err.toFile());
      pb.environment().clear();
      pb.environment().putAll(cliEnv);
      Process p = pb.start();
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
        fail(command + " did not finish within 120 s");
      }
      return new Result(command, p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    }

    /** Runs {@code command} until it exits 0 with {@code word} in its output (at most 3 minutes). */
    private Result until(String command, String word) throws Exception {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
      Result r;
      do {
        for (Map.Entry<String, Process> e : nodes.entrySet()) {
          if (!e.getValue().isAlive()) {
            fail(e.getKey() + " exited with " + e.getValue().exitValue() + ":\n" + journal(e.getKey()));
          }
        }
        r = shell(command);
        if (r.exit() == 0 && r.out().contains(word)) {
          return r;
        }
        Thread.sleep(1000);
      } while (System.nanoTime() < deadline);
      fail("no " + word + " within 3 minutes: " + r);
      return r;
    }

    private String output(String... command) throws Exception {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      assertEquals(0, p.waitFor(), String.join(" ", command) + ": " + out);
      return out;
    }

    List<String> list(Path dir) throws IOException {
      try (Stream<Path> walk = Files.walk(dir)) {
        return walk.map(p -> dir.relativize(p).toString()).sorted().toList();
      }
    }
  }
}
