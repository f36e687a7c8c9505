package dev.ration.cli.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ration.testkit.FreePorts;
import dev.ration.testkit.Waits;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * What an operator watches, checked against a real three-node cluster (bin/ration server
 * processes on free loopback ports): the log lines, the /metrics scrape, and the shipped
 * dashboard and alert rules (config/monitoring/).
 *
 * <p>Goals: every log line carries a timestamp, level and node (term and commit index once Raft
 * runs), in text and in JSON; every metric the dashboard and the rules name is exported by a
 * node; Prometheus's own promtool accepts the rules; and a real Prometheus server scrapes the
 * cluster and evaluates them: no rule errors, no leader-missing alert while a leader exists, and
 * RationNodeDown goes pending when a node is killed. The Prometheus part needs Debian's
 * `prometheus` package (prometheus and promtool on the PATH) and is skipped, saying so, without
 * it. Prometheus runs on a free loopback port with its data in a temporary directory and is
 * stopped by pid, as are the nodes. Prometheus and this test read /metrics as an identity of
 * their own holding only the monitor role; without one the nodes answer 401.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MonitoringIT {
  static final Pattern METRIC = Pattern.compile("\\b((?:ration|ratis|jvm|process|disk)_[a-z0-9_]+)");
  static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]", Pattern.MULTILINE);

  final Path root = EndToEndIT.findRoot();
  final Path rules = root.resolve("config/monitoring/ration-alerts.yml");
  final Path dashboard = root.resolve("config/monitoring/ration-dashboard.json");
  HttpClient http;
  Path dir;
  ProcessCluster cluster;

  @BeforeAll
  void startCluster() throws Exception {
    assertTrue(Files.isRegularFile(root.resolve("cli/target/ration-cli.jar")), "package the CLI first");
    dir = Files.createTempDirectory("ration-monitoring-");
    cluster = new ProcessCluster(root.resolve("bin/ration"), root.resolve("config/cluster-3"), dir);
    // Prometheus scrapes as an identity of its own, holding only the monitor role on every
    // tenant: /metrics and /status are not open to callers without an identity.
    ProcessCluster.Cli cert = cluster.cli(dir, "cert", "create-client", PROMETHEUS);
    assertEquals(0, cert.exitCode(), cert.toString());
    // The admin ports serve HTTPS with the cluster's certificates; this test reads them as
    // Prometheus does.
    http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).sslContext(monitorTls()).build();
    // n1 logs JSON, the others text: both formats are checked below.
    cluster.start(dir, id -> Map.of("RATION_LOG_FORMAT", id.equals("n1") ? "json" : "text"));
    cluster.awaitLeader(dir);
    ProcessCluster.Cli grant = cluster.cli(dir, "role", "grant", "--identity", PROMETHEUS, "--role",
        "monitor", "--tenant", "*", "--servers", cluster.servers());
    assertEquals(0, grant.exitCode(), grant.toString());
  }

  static final String PROMETHEUS = "prometheus";

  Path monitorCert() {
    return cluster.certsDir().resolve("client." + PROMETHEUS + ".crt");
  }

  Path monitorKey() {
    return cluster.certsDir().resolve("client." + PROMETHEUS + ".key");
  }

  /** Trusts the cluster's CA and presents the monitor identity's certificate. */
  javax.net.ssl.SSLContext monitorTls() throws Exception {
    javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLSv1.3");
    ctx.init(new javax.net.ssl.KeyManager[] {new dev.ration.protocol.tls.ReloadingKeyManager(
            dev.ration.protocol.tls.PemFiles.privateKey(monitorKey()),
            dev.ration.protocol.tls.PemFiles.certificates(monitorCert()))},
        new javax.net.ssl.TrustManager[] {new dev.ration.protocol.tls.ReloadingTrustManager(
            dev.ration.protocol.tls.PemFiles.certificates(cluster.certsDir().resolve("ca.crt")))}, null);
    return ctx;
  }

  @AfterAll
  void stopCluster() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
    if (dir != null) {
      EndToEndIT.deleteTree(dir);
    }
  }

  @Test
  @Order(1)
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void logLinesCarryTimeLevelNodeTermAndCommitIndex() throws Exception {
    Pattern text = Pattern.compile(
        "^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z (TRACE|DEBUG|INFO |WARN |ERROR) node=n2 (term=\\d+ commit=-?\\d+ )?\\[[^\\]]+\\] \\S+ - .*");
    List<String> lines = cluster.log("n2").lines().filter(l -> !l.startsWith("\tat ") && !l.isBlank()).toList();
    assertTrue(lines.stream().anyMatch(l -> l.contains("event=node_started")), "n2 log:\n" + lines);
    List<String> heads = lines.stream().filter(l -> l.matches("^\\d{4}-.*")).toList();
    for (String l : heads) {
      assertTrue(text.matcher(l).matches(), "not a text log line: " + l);
    }
    assertTrue(heads.stream().anyMatch(l -> l.matches(".* term=[1-9]\\d* commit=-?\\d+ .*")),
        "no line with a term and commit index once Raft ran:\n" + String.join("\n", heads));

    // n1 runs with RATION_LOG_FORMAT=json: one object per line, the same fields.
    List<Map<String, Object>> objects = new ArrayList<>();
    for (String l : cluster.log("n1").lines().filter(l -> !l.isBlank()).toList()) {
      try {
        objects.add(TestJson.object(l));
      } catch (IllegalArgumentException e) {
        throw new AssertionError("not a JSON log line: " + l, e);
      }
    }
    assertTrue(objects.stream().anyMatch(o -> String.valueOf(o.get("message")).contains("event=node_started")), "n1: " + objects);
    for (Map<String, Object> o : objects) {
      assertTrue(String.valueOf(o.get("time")).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z"), o.toString());
      assertTrue(Set.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR").contains(o.get("level")), o.toString());
      assertEquals("n1", o.get("node"), o.toString());
      assertTrue(o.get("logger") instanceof String && o.get("thread") instanceof String, o.toString());
    }
    assertTrue(objects.stream().anyMatch(o -> o.get("term") instanceof Long t && t > 0 && o.get("commit") instanceof Long),
        "no JSON line with a term and commit index");

    // A value the node cannot use is refused at start, naming it, rather than ignored.
    ProcessCluster.Cli bad = cliWithEnv(Map.of("RATION_LOG_FORMAT", "yaml"), "server", "--node", "n1");
    assertEquals(1, bad.exitCode(), bad.toString());
    assertTrue(bad.err().contains("log format must be text or json, not 'yaml'"), bad.toString());
  }

  ProcessCluster.Cli cliWithEnv(Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(root.resolve("bin/ration").toString());
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
    pb.environment().putAll(env);
    pb.environment().put("RATION_JAVA_OPTS", "-Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
    pb.environment().put("RATION_CDS", "off");
    pb.environment().put("RATION_HELPER", "off");
    Path out = dir.resolve("env-cli.out");
    Path err = dir.resolve("env-cli.err");
    Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
      throw new AssertionError("ration " + String.join(" ", args) + " did not finish within 60s");
    }
    return new ProcessCluster.Cli(List.of(args), p.exitValue(), Files.readString(out), Files.readString(err));
  }

  @Test
  @Order(2)
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void everyMetricTheDashboardAndRulesNameIsExported() throws Exception {
    // Traffic, so request, latency and per-limit series exist.
    ProcessCluster.Cli set = cluster.cli(dir, "limit", "set", "--tenant", "mon", "--resource", "api",
        "--rate", "100", "--burst", "100", "--lease-duration", "60s", "--grace", "5s", "--servers", cluster.servers());
    assertEquals(0, set.exitCode(), set.toString());
    ProcessCluster.Cli acquire = cluster.cli(dir, "lease", "acquire", "--tenant", "mon", "--resource", "api",
        "--holder", "r1", "--rate", "10", "--burst", "10", "--servers", cluster.servers());
    assertEquals(0, acquire.exitCode(), acquire.toString());

    Set<String> named = new TreeSet<>();
    named.addAll(names(Files.readString(rules)));
    named.addAll(names(Files.readString(dashboard)));
    assertTrue(named.size() > 30, "too few metric names found: " + named);
    // Per-limit gauges refresh every 5 s; the union over the nodes covers leader-only series.
    Waits.upTo(Duration.ofSeconds(60)).every(Duration.ofSeconds(1)).untilAsserted("every named metric exported", () -> {
      Set<String> exported = new TreeSet<>();
      for (String id : ProcessCluster.IDS) {
        Matcher m = SAMPLE.matcher(get("https://" + cluster.admin(id) + "/metrics"));
        while (m.find()) {
          exported.add(m.group(1));
        }
      }
      Set<String> missing = new TreeSet<>(named);
      missing.removeAll(exported);
      assertEquals(Set.of(), missing, "named in config/monitoring but not exported by any node");
      // The base-unit names replaced the old ones; alerts raised is a counter now.
      for (String old : List.of("ration_ledger_now_millis", "ration_expiry_overdue_millis", "ration_quota_alerts_raised")) {
        assertTrue(!exported.contains(old), old + " still exported");
      }
      assertTrue(exported.contains("ration_quota_alerts_raised_total"), "ration_quota_alerts_raised_total missing");
    });
    String scrape = get("https://" + cluster.admin("n1") + "/metrics");
    assertTrue(scrape.contains("# TYPE ration_quota_alerts_raised_total counter"), "alerts raised typed as a counter");
    // Without an identity: the probes answer, /metrics and /status do not.
    HttpClient anonymous = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).sslContext(cluster.adminTls()).build();
    for (String path : List.of("/health", "/metrics", "/status")) {
      HttpResponse<String> r = anonymous.send(HttpRequest.newBuilder(URI.create("https://" + cluster.admin("n1") + path))
          .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(path.equals("/health") ? 200 : 401, r.statusCode(), path + " -> " + r.body());
    }
    assertTrue(Pattern.compile("ration_build_info\\{commit=\"[^\"]+\",version=\"[^\"]+\"} 1").matcher(scrape).find(),
        "ration_build_info with version and commit");
  }

  static Set<String> names(String text) {
    Set<String> out = new TreeSet<>();
    Matcher m = METRIC.matcher(text);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  @Test
  @Order(3)
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void realPrometheusScrapesTheClusterAndEvaluatesTheRules() throws Exception {
    Optional<Path> promtool = onPath("promtool");
    Optional<Path> prometheus = onPath("prometheus");
    assumeTrue(promtool.isPresent() && prometheus.isPresent(),
        "SKIPPED: prometheus and promtool are not on the PATH; install Debian's package: apt-get install prometheus");

    ProcessCluster.Cli check = run(List.of(promtool.get().toString(), "check", "rules", rules.toString()));
    assertEquals(0, check.exitCode(), check.toString());

    int port = FreePorts.next();
    Path data = Files.createDirectories(dir.resolve("prometheus-data"));
    Path config = dir.resolve("prometheus.yml");
    List<String> targets = new ArrayList<>();
    ProcessCluster.IDS.forEach(id -> targets.add("'" + cluster.admin(id) + "'"));
    Files.writeString(config, String.join("\n",
        "global: { scrape_interval: 1s, evaluation_interval: 1s }",
        "rule_files: ['" + rules + "']",
        "scrape_configs:",
        "  - job_name: ration",
        "    scheme: https",
        "    tls_config: { ca_file: '" + cluster.certsDir().resolve("ca.crt") + "', cert_file: '"
            + monitorCert() + "', key_file: '" + monitorKey() + "' }",
        "    static_configs: [ { targets: [" + String.join(", ", targets) + "] } ]", ""));
    ProcessCluster.Cli checkConfig = run(List.of(promtool.get().toString(), "check", "config", config.toString()));
    assertEquals(0, checkConfig.exitCode(), checkConfig.toString());

    Process server = new ProcessBuilder(prometheus.get().toString(), "--config.file=" + config,
        "--storage.tsdb.path=" + data, "--web.listen-address=127.0.0.1:" + port, "--log.level=warn")
        .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
    String api = "http://127.0.0.1:" + port;
    try {
      Waits.upTo(Duration.ofSeconds(60)).every(Duration.ofMillis(500)).untilAsserted("prometheus ready", () -> {
        assertTrue(server.isAlive(), "prometheus exited:\n" + Files.readString(dir.resolve("prometheus.log")));
        try {
          assertTrue(get(api + "/-/ready").contains("Ready"));
        } catch (IOException notYet) {
          throw new AssertionError("prometheus not listening yet: " + notYet);
        }
      });
      Waits.upTo(Duration.ofSeconds(60)).every(Duration.ofSeconds(1)).untilAsserted("three targets up", () -> {
        List<Object> active = EndToEndIT.list(EndToEndIT.map(json(api + "/api/v1/targets").get("data")).get("activeTargets"));
        assertEquals(3, active.size(), active.toString());
        for (Object t : active) {
          assertEquals("up", EndToEndIT.map(t).get("health"), t.toString());
        }
      });
      // Every rule evaluated without error; with a leader, nothing pages.
      Waits.upTo(Duration.ofSeconds(60)).every(Duration.ofSeconds(1)).untilAsserted("rules evaluated", () -> {
        List<Map<String, Object>> all = rules(api);
        // As many as the rules file declares: Prometheus loaded every one of them.
        long declared = Files.readAllLines(rules).stream()
            .filter(l -> l.trim().startsWith("- alert:")).count();
        assertEquals(declared, all.size(), all.toString());
        for (Map<String, Object> r : all) {
          assertEquals("ok", r.get("health"), "rule " + r.get("name") + ": " + r.get("lastError"));
          assertTrue(!String.valueOf(r.get("lastEvaluation")).startsWith("0001"), "rule " + r.get("name") + " not evaluated yet");
        }
        assertEquals("inactive", rule(all, "RationLeaderMissing").get("state"));
        assertEquals("inactive", rule(all, "RationNodeDown").get("state"));
        // The cluster runs with TLS and certificates valid for 30 days.
        assertEquals("inactive", rule(all, "RationInsecure").get("state"));
        assertEquals("inactive", rule(all, "RationCertificateExpiresSoon").get("state"));
      });
      // Each node is scraped at its own moment: across an election, one scrape can still show
      // the old leader and another the new one (2), or both none yet (0). A sum of one comes.
      Waits.upTo(Duration.ofSeconds(60)).every(Duration.ofSeconds(1)).untilAsserted("one leader summed", () -> {
        Map<String, Object> leaders = json(api + "/api/v1/query?query="
            + URLEncoder.encode("sum(ration_raft_role{job=\"ration\",role=\"leader\"})", StandardCharsets.UTF_8));
        List<Object> result = EndToEndIT.list(EndToEndIT.map(leaders.get("data")).get("result"));
        assertEquals(1, result.size(), leaders.toString());
        assertEquals("1", EndToEndIT.list(EndToEndIT.map(result.get(0)).get("value")).get(1), leaders.toString());
      });

      // A node dies (our own process, by pid): RationNodeDown turns pending for that instance.
      String victim = followerId();
      ProcessHandle.of(cluster.pid(victim)).orElseThrow().destroyForcibly();
      String instance = cluster.admin(victim);
      Waits.upTo(Duration.ofSeconds(60)).every(Duration.ofSeconds(1)).untilAsserted("RationNodeDown for " + victim, () -> {
        List<Object> alerts = EndToEndIT.list(EndToEndIT.map(json(api + "/api/v1/alerts").get("data")).get("alerts"));
        assertTrue(alerts.stream().map(EndToEndIT::map).anyMatch(a ->
                "RationNodeDown".equals(EndToEndIT.map(a.get("labels")).get("alertname"))
                    && instance.equals(EndToEndIT.map(a.get("labels")).get("instance"))
                    && Set.of("pending", "firing").contains(a.get("state"))),
            "alerts: " + alerts);
      });
    } finally {
      server.destroy();
      if (!server.waitFor(30, TimeUnit.SECONDS)) {
        server.destroyForcibly();
        server.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  String followerId() throws Exception {
    Map<String, Object> leader = cluster.awaitLeader(dir);
    return ProcessCluster.IDS.stream().filter(id -> !id.equals(leader.get("id"))).findFirst().orElseThrow();
  }

  List<Map<String, Object>> rules(String api) throws Exception {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Object g : EndToEndIT.list(EndToEndIT.map(json(api + "/api/v1/rules").get("data")).get("groups"))) {
      for (Object r : EndToEndIT.list(EndToEndIT.map(g).get("rules"))) {
        out.add(EndToEndIT.map(r));
      }
    }
    return out;
  }

  static Map<String, Object> rule(List<Map<String, Object>> all, String name) {
    return all.stream().filter(r -> name.equals(r.get("name"))).findFirst()
        .orElseThrow(() -> new AssertionError("no rule " + name + " in " + all));
  }

  Map<String, Object> json(String url) throws Exception {
    Map<String, Object> m = TestJson.object(get(url));
    assertEquals("success", m.get("status"), url + " -> " + m);
    return m;
  }

  String get(String url) throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), url + " -> " + r.body());
    return r.body();
  }

  ProcessCluster.Cli run(List<String> command) throws Exception {
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), command + " did not finish");
    return new ProcessCluster.Cli(command, p.exitValue(), out, "");
  }

  static Optional<Path> onPath(String name) {
    String path = System.getenv().getOrDefault("PATH", "");
    return Stream.of(path.split(File.pathSeparator)).map(d -> Paths.get(d, name)).filter(Files::isExecutable).findFirst();
  }
}
