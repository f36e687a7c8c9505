package dev.ration.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.server.consensus.ConsensusOptions;
import dev.ration.server.consensus.Peer;
import dev.ration.server.security.SecurityOptions;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.quota.QuotaOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Goal: every valid file loads to the documented values, and every kind of mistake is named. */
class ConfigLoaderTest {

  private static final String PEERS = """
      cluster:
        peers:
          - { id: n1, raft: 127.0.0.1:7201, client: 127.0.0.1:7101, admin: 127.0.0.1:7301 }
          - { id: n2, raft: 127.0.0.1:7202, client: 127.0.0.1:7102, admin: 127.0.0.1:7302 }
          - { id: n3, raft: 127.0.0.1:7203, client: 127.0.0.1:7103, admin: 127.0.0.1:7303 }
      """;
  private static final String MINIMAL = """
      node:
        id: n2
        data-dir: data/n2
      """ + PEERS;

  @TempDir Path dir;

  private ServerConfig parse(String yaml) throws ConfigException {
    return ConfigLoader.parse(yaml, "test.yaml", dir, Optional.empty());
  }

  private List<String> problems(String yaml) {
    ConfigException e = assertThrows(ConfigException.class, () -> parse(yaml));
    return e.problems();
  }

  private void assertProblem(String yaml, String expected) {
    List<String> p = problems(yaml);
    assertTrue(p.contains(expected), "expected problem <" + expected + "> among " + p);
  }

  @Test
  void minimalFileGetsEveryDocumentedDefault() throws Exception {
    ServerConfig c = parse(MINIMAL);
    ConsensusOptions o = c.consensus();
    assertEquals("n2", o.nodeId());
    assertEquals(ConfigLoader.DEFAULT_GROUP_ID, o.groupId());
    assertEquals(dir.resolve("data/n2").toAbsolutePath().normalize(), o.dataDir());
    assertEquals(3, o.peers().size());
    assertEquals(new Peer("n3", "127.0.0.1:7203", "127.0.0.1:7103", "127.0.0.1:7303"), o.peers().get(2));
    assertEquals("127.0.0.1:7102", c.clientAddress());
    assertEquals("127.0.0.1:7302", c.adminAddress());
    assertEquals(Duration.ofSeconds(1), o.electionTimeoutMin());
    assertEquals(Duration.ofSeconds(2), o.electionTimeoutMax());
    assertEquals(Duration.ofSeconds(3), o.requestTimeout());
    assertEquals(100_000, o.snapshotThresholdEntries());
    assertEquals(10_000, o.purgePreservedEntries());
    assertEquals(32L << 20, o.segmentSizeBytes());
    assertEquals(1024, o.batchMaxCommands());
    assertEquals(1 << 20, o.batchMaxBytes());
    assertEquals(Duration.ofMillis(1), o.batchLinger());
    assertEquals(4, o.maxEntriesInFlight());
    assertEquals(16_384, o.queueCapacity());
    assertEquals(Duration.ofMillis(250), o.tickInterval());
    assertEquals(1000, o.tickMaxItems());
    assertEquals(60_000, o.stateOptions().idempotencyRetentionMillis());
    assertEquals(100_000, o.stateOptions().maxLimits());
    assertEquals(10_000, o.stateOptions().maxLeasesPerLimit());
    assertEquals(128, o.stateOptions().maxNameBytes());
    assertEquals(QuotaOptions.defaults(), o.stateOptions().quota());
    assertEquals(StateOptions.defaults(), o.stateOptions());
    assertEquals(new EndpointOptions(1 << 20, 1024, 1024, Duration.ofSeconds(5), Duration.ofSeconds(60), 2, 256), c.endpoint());
    assertEquals(Duration.ofSeconds(5), c.shutdownGrace());
  }

  @Test
  void explicitValuesOverrideDefaults() throws Exception {
    ServerConfig c = parse(MINIMAL + """
        raft: { election-timeout-min: 500ms, election-timeout-max: 500ms, segment-size: 8MiB, snapshot-threshold-entries: 1_000 }
        group-commit: { max-commands: 64, max-bytes: 262144, linger: 0, queue-capacity: 10 }
        ledger: { idempotency-retention: 2m, max-name-bytes: 64 }
        endpoint: { max-frame-bytes: 64KiB, io-threads: 1, default-deadline: 1s }
        shutdown: { grace: 0ms }
        """);
    assertEquals(Duration.ofMillis(500), c.consensus().electionTimeoutMax());
    assertEquals(8L << 20, c.consensus().segmentSizeBytes());
    assertEquals(1000, c.consensus().snapshotThresholdEntries());
    assertEquals(262_144, c.consensus().batchMaxBytes());
    assertEquals(Duration.ZERO, c.consensus().batchLinger());
    assertEquals(10, c.consensus().queueCapacity());
    assertEquals(120_000, c.consensus().stateOptions().idempotencyRetentionMillis());
    assertEquals(64 << 10, c.endpoint().maxFrameBytes());
    assertEquals(Duration.ofSeconds(1), c.endpoint().defaultDeadline());
    assertEquals(Duration.ZERO, c.shutdownGrace());
  }

  @Test
  void everyReplicatedBoundAndTheTenantCapAreRead() throws Exception {
    ServerConfig c = parse(MINIMAL + """
        ledger:
          max-limits: 50
          max-leases-per-limit: 7
          max-name-bytes: 256
          quota:
            dedup-retention: 2h
            settled-retention: 30m
            max-future-skew: 0
            max-reservation-ttl: 1h
            max-items-per-reservation: 4
            max-scan-records: 5_000
        endpoint: { max-in-flight-per-tenant: 3, tenant-fairness: quota }
        """);
    assertEquals(new StateOptions(60_000, 50, 7, 256,
            new QuotaOptions(7_200_000, 1_800_000, 0, 3_600_000, 4, 5_000)),
        c.consensus().stateOptions());
    assertEquals(3, c.endpoint().maxInFlightPerTenant());
    assertEquals(TenantFairness.QUOTA, c.endpoint().tenantFairness());
  }

  @Test
  void theUsageAndAuditRetentionsAreReadAndCrossChecked() throws Exception {
    ServerConfig c = parse(MINIMAL + """
        ledger:
          quota: { usage-retention: 2h, usage-max-retention: 48h, audit-retention: 720h }
        """);
    QuotaOptions q = c.consensus().stateOptions().quota();
    assertEquals(7_200_000, q.usageRetentionMillis());
    assertEquals(48 * 3_600_000L, q.usageMaxRetentionMillis());
    assertEquals(720 * 3_600_000L, q.auditRetentionMillis());
    assertEquals(List.of("ledger.quota.usage-retention: 30m is shorter than dedup-retention 1h "
            + "or settled-retention 1h (an event id or a settled reservation would outlive its "
            + "usage records)"),
        problems(MINIMAL + "ledger: { quota: { usage-retention: 30m } }\n"));
    assertEquals(List.of("ledger.quota.usage-max-retention: 1h is shorter than usage-retention 2h"),
        problems(MINIMAL + "ledger: { quota: { usage-retention: 2h, usage-max-retention: 1h } }\n"));
  }

  @Test
  void theSecurityAuditRetentionIsReadAndBounded() throws Exception {
    assertEquals(StateOptions.DEFAULT_SECURITY_AUDIT_RETENTION_MILLIS,
        parse(MINIMAL).consensus().stateOptions().securityAuditRetentionMillis());
    assertEquals(365L * 24 * 3_600_000, StateOptions.DEFAULT_SECURITY_AUDIT_RETENTION_MILLIS);
    assertEquals(720L * 3_600_000, parse(MINIMAL + "ledger: { security-audit-retention: 720h }\n")
        .consensus().stateOptions().securityAuditRetentionMillis());
    List<String> tooShort = problems(MINIMAL + "ledger: { security-audit-retention: 30s }\n");
    assertEquals(1, tooShort.size(), tooShort.toString());
    assertTrue(tooShort.get(0).startsWith("ledger.security-audit-retention:"), tooShort.toString());
  }

  @Test
  void metricsAndStatusAreClosedUnlessOpenMetricsWhileProbesStayOpen() throws Exception {
    String secure = MINIMAL + "security: { mode: secure, bootstrap-admins: [admin] }\n";
    assertTrue(parse(secure).security().openHealthEndpoints());
    assertTrue(!parse(secure).security().openMetrics());
    assertTrue(parse(secure.replace("admin] }", "admin], open-metrics: true }"))
        .security().openMetrics());
    // A file written before open-metrics existed still loads; the key now covers the probes.
    var old = parse(secure.replace("admin] }", "admin], open-health-endpoints: false }")).security();
    assertTrue(!old.openHealthEndpoints() && !old.openMetrics());
    List<String> bad = problems(secure.replace("admin] }", "admin], open-metrics: yes please }"));
    assertEquals(1, bad.size(), bad.toString());
    assertTrue(bad.get(0).startsWith("security.open-metrics:"), bad.toString());
  }

  @Test
  void relativeDataDirResolvesAgainstTheFilesDirectory(@TempDir Path other) throws Exception {
    Path sub = Files.createDirectories(dir.resolve("conf/deep"));
    Path file = sub.resolve("n1.yaml");
    Files.writeString(file, MINIMAL.replace("id: n2\n", "id: n1\n").replace("data/n2", "../../run/n1"));
    ServerConfig c = ConfigLoader.load(file);
    assertEquals(dir.resolve("run/n1").toAbsolutePath().normalize(), c.consensus().dataDir());

    ServerConfig overridden = ConfigLoader.load(file, Optional.of(other.resolve("x")));
    assertEquals(other.resolve("x").toAbsolutePath().normalize(), overridden.consensus().dataDir());
  }

  @Test
  void dataDirOverrideMakesTheKeyOptional() throws Exception {
    String yaml = "node: { id: n1 }\n" + PEERS;
    assertProblem(yaml, "node.data-dir: is required");
    ServerConfig c = ConfigLoader.parse(yaml, "t", dir, Optional.of(dir.resolve("d")));
    assertEquals(dir.resolve("d"), c.consensus().dataDir());
  }

  @Test
  void embeddedDefaultIsTheLoopbackThreeNodeCluster() throws Exception {
    for (int i = 1; i <= 3; i++) {
      ServerConfig c = ConfigLoader.loadEmbedded("n" + i, Optional.empty());
      assertEquals("n" + i, c.consensus().nodeId());
      assertEquals("127.0.0.1:710" + i, c.clientAddress());
      assertEquals("127.0.0.1:730" + i, c.adminAddress());
      assertEquals("127.0.0.1:720" + i, c.consensus().self().raftAddress());
      assertEquals(Path.of("run/local/n" + i).toAbsolutePath().normalize(), c.consensus().dataDir());
    }
    ServerConfig d = ConfigLoader.loadEmbedded("n2", Optional.of(dir));
    assertEquals(dir, d.consensus().dataDir());
    ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.loadEmbedded("n9", Optional.empty()));
    assertEquals(List.of("node.id: 'n9' is not among cluster.peers (ids: n1, n2, n3)"), e.problems());
    assertEquals(ConfigLoader.EMBEDDED_SOURCE, e.source());
  }

  @Test
  void requiredKeysAreNamed() {
    assertEquals(List.of("node: is required", "cluster: is required"), problems("raft: { request-timeout: 3s }"));
    List<String> p = problems("node: { data-dir: x }\ncluster: { group-id: " + ConfigLoader.DEFAULT_GROUP_ID + " }");
    assertEquals(List.of("node.id: is required", "cluster.peers: is required"), p);
    assertProblem("node: { id: n1, data-dir: d }\ncluster: { peers: [] }", "cluster.peers: must list at least one peer");
    assertProblem(MINIMAL.replace(", admin: 127.0.0.1:7303", ""), "cluster.peers[2].admin: is required");
  }

  @Test
  void unknownKeysAreRejectedAtEveryLevel() {
    assertProblem(MINIMAL + "raft: { election-timeout: 1s }\n",
        "raft.election-timeout: unknown key (known keys here: election-timeout-max, election-timeout-min, "
            + "purge-preserved-entries, request-timeout, segment-size, snapshot-threshold-entries)");
    assertTrue(problems(MINIMAL + "rafts: {}\n").stream().anyMatch(s -> s.startsWith("rafts: unknown key")));
    assertTrue(problems(MINIMAL.replace("admin: 127.0.0.1:7301", "admin: 127.0.0.1:7301, http: 127.0.0.1:1"))
        .stream().anyMatch(s -> s.startsWith("cluster.peers[0].http: unknown key")));
    assertTrue(problems(MINIMAL.replace("data-dir: data/n2", "data-dir: data/n2\n  datadir: x"))
        .stream().anyMatch(s -> s.startsWith("node.datadir: unknown key")));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "raft: { election-timeout-min: 50ms }|raft.election-timeout-min: 50ms is below the minimum 100ms",
      "raft: { election-timeout-max: 2m }|raft.election-timeout-max: 2m is above the maximum 1m",
      "raft: { request-timeout: 2 seconds }|raft.request-timeout: '2 seconds' is not a duration (use a whole number with a unit: ms, s, m or h, e.g. 250ms, 2s, 5m)",
      "raft: { request-timeout: 1.5s }|raft.request-timeout: '1.5s' is not a duration (use a whole number with a unit: ms, s, m or h, e.g. 250ms, 2s, 5m)",
      "raft: { request-timeout: 3 }|raft.request-timeout: expected a duration with a unit (e.g. 250ms, 2s, 5m), got the number 3",
      "raft: { segment-size: 32MB }|raft.segment-size: '32MB' is not a size (binary units only, case-sensitive: KiB, MiB, GiB)",
      "raft: { segment-size: lots }|raft.segment-size: 'lots' is not a size (use a whole number of bytes, or with a unit: B, KiB, MiB, GiB, e.g. 1MiB)",
      "raft: { segment-size: 2GiB }|raft.segment-size: 2GiB is above the maximum 1GiB",
      "raft: { snapshot-threshold-entries: 10 }|raft.snapshot-threshold-entries: 10 is below the minimum 100",
      "raft: { snapshot-threshold-entries: many }|raft.snapshot-threshold-entries: expected a whole number, got 'many'",
      "raft: { purge-preserved-entries: -1 }|raft.purge-preserved-entries: -1 is below the minimum 0",
      "group-commit: { max-commands: 0 }|group-commit.max-commands: 0 is below the minimum 1",
      "group-commit: { max-bytes: 512 }|group-commit.max-bytes: 512 is below the minimum 1KiB",
      "group-commit: { linger: 2s }|group-commit.linger: 2s is above the maximum 1s",
      "group-commit: { max-entries-in-flight: 2000 }|group-commit.max-entries-in-flight: 2000 is above the maximum 1024",
      "group-commit: { queue-capacity: 99999999999999999999999 }|group-commit.queue-capacity: 99999999999999999999999 is above the maximum 1048576",
      "ledger: { tick-interval: 5ms }|ledger.tick-interval: 5ms is below the minimum 10ms",
      "ledger: { tick-max-items: 0 }|ledger.tick-max-items: 0 is below the minimum 1",
      "ledger: { idempotency-retention: 500ms }|ledger.idempotency-retention: 500ms is below the minimum 1s",
      "ledger: { max-limits: 0 }|ledger.max-limits: 0 is below the minimum 1",
      "ledger: { max-leases-per-limit: 2000000 }|ledger.max-leases-per-limit: 2000000 is above the maximum 1000000",
      "ledger: { max-name-bytes: 2048 }|ledger.max-name-bytes: 2048 is above the maximum 1024",
      "ledger: { max-name-bytes: 0 }|ledger.max-name-bytes: 0 is below the minimum 1",
      "ledger: { quota: 1h }|ledger.quota: expected a mapping of keys to values, got '1h'",
      "ledger: { quota: { dedup-retention: 500ms } }|ledger.quota.dedup-retention: 500ms is below the minimum 1s",
      "ledger: { quota: { dedup-retention: 200h } }|ledger.quota.dedup-retention: 200h is above the maximum 168h",
      "ledger: { quota: { settled-retention: 0 } }|ledger.quota.settled-retention: 0 is below the minimum 1s",
      "ledger: { quota: { settled-retention: 10081m } }|ledger.quota.settled-retention: 10081m is above the maximum 168h",
      "ledger: { quota: { max-future-skew: 2h } }|ledger.quota.max-future-skew: 2h is above the maximum 1h",
      "ledger: { quota: { max-future-skew: -1s } }|ledger.quota.max-future-skew: '-1s' is not a duration (use a whole number with a unit: ms, s, m or h, e.g. 250ms, 2s, 5m)",
      "ledger: { quota: { max-reservation-ttl: 50ms } }|ledger.quota.max-reservation-ttl: 50ms is below the minimum 100ms",
      "ledger: { quota: { max-reservation-ttl: 721h } }|ledger.quota.max-reservation-ttl: 721h is above the maximum 720h",
      "ledger: { quota: { max-items-per-reservation: 0 } }|ledger.quota.max-items-per-reservation: 0 is below the minimum 1",
      "ledger: { quota: { max-items-per-reservation: 1025 } }|ledger.quota.max-items-per-reservation: 1025 is above the maximum 1024",
      "ledger: { quota: { max-scan-records: 999 } }|ledger.quota.max-scan-records: 999 is below the minimum 1000",
      "ledger: { quota: { max-scan-records: 10_000_001 } }|ledger.quota.max-scan-records: 10000001 is above the maximum 10000000",
      "ledger: { quota: { max-scan-records: lots } }|ledger.quota.max-scan-records: expected a whole number, got 'lots'",
      "ledger: { quota: { dedup-retention: 1h, dedupe-retention: 1h } }|ledger.quota.dedupe-retention: unknown key (known keys here: audit-retention, dedup-retention, max-future-skew, max-items-per-reservation, max-reservation-ttl, max-scan-records, settled-retention, usage-max-retention, usage-retention)",
      "endpoint: { max-in-flight-per-tenant: 0 }|endpoint.max-in-flight-per-tenant: 0 is below the minimum 1",
      "endpoint: { max-in-flight-per-tenant: 70000 }|endpoint.max-in-flight-per-tenant: 70000 is above the maximum 65536",
      "endpoint: { tenant-fairness: sometimes }|endpoint.tenant-fairness: \"sometimes\" is not one of all, quota, none",
      "endpoint: { tenant-fairness: off }|endpoint.tenant-fairness: expected a string, got the boolean false (quote it)",
      "endpoint: { max-frame-bytes: 128MiB }|endpoint.max-frame-bytes: 128MiB is above the maximum 64MiB",
      "endpoint: { max-in-flight-per-connection: 0 }|endpoint.max-in-flight-per-connection: 0 is below the minimum 1",
      "endpoint: { max-connections: true }|endpoint.max-connections: expected a whole number, got the boolean true",
      "endpoint: { default-deadline: 1ms }|endpoint.default-deadline: 1ms is below the minimum 10ms",
      "endpoint: { max-deadline: 2h }|endpoint.max-deadline: 2h is above the maximum 1h",
      "endpoint: { io-threads: 100 }|endpoint.io-threads: 100 is above the maximum 64",
      "shutdown: { grace: 11m }|shutdown.grace: 11m is above the maximum 10m",
      "shutdown: 5s|shutdown: expected a mapping of keys to values, got '5s'",
  })
  void badValuesAreNamedWithTheirBound(String section, String expected) {
    assertEquals(List.of(expected), problems(MINIMAL + section + "\n"));
  }

  @Test
  void crossChecks() {
    assertEquals(List.of("raft.election-timeout-min: 3s is above raft.election-timeout-max 2s"),
        problems(MINIMAL + "raft: { election-timeout-min: 3s }\n"));
    assertEquals(List.of("endpoint.default-deadline: 2m is above endpoint.max-deadline 1m"),
        problems(MINIMAL + "endpoint: { default-deadline: 2m }\n"));
    assertEquals(List.of("group-commit.max-bytes: 8MiB is above raft.segment-size 4MiB (a batch must fit in one log segment)"),
        problems(MINIMAL + "raft: { segment-size: 4MiB }\ngroup-commit: { max-bytes: 8MiB }\n"));
    assertEquals(List.of("ledger.idempotency-retention: 30s is below endpoint.max-deadline 1m (a retry within its deadline must find its first answer)"),
        problems(MINIMAL + "ledger: { idempotency-retention: 30s }\n"));
    // A bad value is reported once, not again as a spurious cross-check against its default.
    assertEquals(List.of("raft.election-timeout-min: 50ms is below the minimum 100ms"),
        problems(MINIMAL + "raft: { election-timeout-min: 50ms, election-timeout-max: 500ms }\n"));
  }

  @Test
  void theSecuritySectionIsReadAndItsMistakesNamed() throws Exception {
    assertEquals(SecurityOptions.INSECURE, parse(MINIMAL).security());
    var secure = parse(MINIMAL + "security: { mode: secure, bootstrap-admins: [admin], "
        + "open-health-endpoints: false, auth-failures-per-minute: 3 }\n").security();
    assertEquals(new SecurityOptions(
        SecurityOptions.Mode.SECURE, List.of("admin"), false, 3), secure);
    assertEquals(List.of("security.mode: 'maybe' is neither secure nor insecure"),
        problems(MINIMAL + "security: { mode: maybe }\n"));
    assertEquals(List.of("security.mode: is required"), problems(MINIMAL + "security: {}\n"));
    assertEquals(List.of(
            "security.bootstrap-admins[1]: expected a non-empty string, got ''",
            "security.bootstrap-tokens: 'nope' is not <identity>@rtnh.... (as printed by ration token bootstrap)",
            "security.open-health-endpoints: expected true or false, got 'yes2'",
            "security.auth-failures-per-minute: 0 is below the minimum 1",
            "security.what: unknown key (known keys here: auth-failures-per-minute, bootstrap-admins, "
                + "bootstrap-tokens, mode, open-health-endpoints, open-metrics)"),
        problems(MINIMAL + "security: { mode: insecure, bootstrap-admins: [a, ''], bootstrap-tokens: [nope], "
            + "open-health-endpoints: yes2, auth-failures-per-minute: 0, what: 1 }\n"));
  }

  @Test
  void aDataDirOverrideIgnoresTheFilesPath() throws Exception {
    // The file's data-dir is not used with --data-dir, so a path that could not be resolved
    // does not stop the node.
    String yaml = MINIMAL.replace("data-dir: data/n2", "data-dir: \"a\\0b\"");
    assertTrue(problems(yaml).get(0).startsWith("node.data-dir: 'a"), problems(yaml).toString());
    assertEquals(dir.resolve("d"),
        ConfigLoader.parse(yaml, "t", dir, Optional.of(dir.resolve("d"))).consensus().dataDir());
  }

  @Test
  void peerProblems() {
    assertEquals(List.of("node.id: 'n7' is not among cluster.peers (ids: n1, n2, n3)"),
        problems(MINIMAL.replace("id: n2\n", "id: n7\n")));
    assertEquals(List.of("cluster.peers[2].id: 'n2' duplicates cluster.peers[1].id"),
        problems(MINIMAL.replace("{ id: n3", "{ id: n2")));
    assertEquals(List.of("cluster.peers[1].client: 127.0.0.1:7201 duplicates cluster.peers[0].raft"),
        problems(MINIMAL.replace("client: 127.0.0.1:7102", "client: 127.0.0.1:7201")));
    assertEquals(List.of("cluster.peers[0].raft: '127.0.0.1' is not host:port"),
        problems(MINIMAL.replace("raft: 127.0.0.1:7201", "raft: 127.0.0.1")));
    assertEquals(List.of("cluster.peers[0].raft: '127.0.0.1:70000' has a bad port '70000' (1-65535)"),
        problems(MINIMAL.replace("raft: 127.0.0.1:7201", "raft: 127.0.0.1:70000")));
    assertEquals(List.of("cluster.peers[0].raft: 'a b:1' is not host:port (bad host 'a b'; write IPv6 as [::1]:port)"),
        problems(MINIMAL.replace("raft: 127.0.0.1:7201", "raft: 'a b:1'")));
    assertEquals(List.of("cluster.peers[0].client: '0.0.0.0:7101' uses a wildcard host; peers need an address they can dial"),
        problems(MINIMAL.replace("client: 127.0.0.1:7101", "client: 0.0.0.0:7101")));
    assertEquals(List.of("cluster.peers[0].id: expected a string, got the boolean false (quote it)"),
        problems(MINIMAL.replace("{ id: n1", "{ id: no")));
    assertEquals(List.of("cluster.peers[0].id: 'bad/id' is not a valid node id (1-64 of A-Z a-z 0-9 _ . -, starting with a letter or digit)"),
        problems(MINIMAL.replace("{ id: n1", "{ id: bad/id")));
    assertEquals(List.of("cluster.group-id: 'cluster-1' is not a UUID (lower-case, e.g. 02511d47-d67c-49a3-9011-abb3109a44c1)"),
        problems(MINIMAL.replace("cluster:\n", "cluster:\n  group-id: cluster-1\n")));
    // IPv6 literals and host names are fine.
    String ok = MINIMAL.replace("raft: 127.0.0.1:7201", "raft: '[::1]:7201'").replace("client: 127.0.0.1:7101", "client: node-1.example:7101");
    assertTrue(assertDoesNotThrowConfig(ok).consensus().peers().get(0).raftAddress().equals("[::1]:7201"));
  }

  private ServerConfig assertDoesNotThrowConfig(String yaml) {
    try {
      return parse(yaml);
    } catch (ConfigException e) {
      throw new AssertionError("unexpected: " + e.getMessage(), e);
    }
  }

  @Test
  void everyProblemIsReportedTogether() {
    ConfigException e = assertThrows(ConfigException.class, () -> parse("""
        node: { id: n1, data-dir: d, colour: blue }
        cluster:
          group-id: nope
          peers:
            - { id: n1, raft: 127.0.0.1:1, client: 127.0.0.1:1, admin: 127.0.0.1:3 }
        raft: { election-timeout-min: 10ms, segment-size: 1MB }
        endpoint: { io-threads: 0 }
        """));
    assertEquals(List.of(
        "node.colour: unknown key (known keys here: data-dir, id)",
        "cluster.group-id: 'nope' is not a UUID (lower-case, e.g. 02511d47-d67c-49a3-9011-abb3109a44c1)",
        "cluster.peers[0].client: 127.0.0.1:1 duplicates cluster.peers[0].raft",
        "raft.election-timeout-min: 10ms is below the minimum 100ms",
        "raft.segment-size: '1MB' is not a size (binary units only, case-sensitive: KiB, MiB, GiB)",
        "endpoint.io-threads: 0 is below the minimum 1"), e.problems());
    assertTrue(e.getMessage().startsWith("invalid configuration test.yaml (6 problems):"), e.getMessage());
  }

  @Test
  void unreadableOrMalformedFiles() throws Exception {
    ConfigException missing = assertThrows(ConfigException.class, () -> ConfigLoader.load(dir.resolve("nope.yaml")));
    assertEquals(List.of("cannot read: no such file"), missing.problems());
    assertEquals(List.of("the file is empty"), problems("# nothing\n"));
    assertTrue(problems("node: [unclosed\n").get(0).startsWith("not valid YAML: "));
    assertTrue(problems(MINIMAL + "node: { id: n1 }\n").get(0).startsWith("not valid YAML: "), "duplicate key");
    assertEquals(List.of("the document: expected a mapping of keys to values, got a list"), problems("- a\n- b\n"));
    Path notDir = Files.writeString(dir.resolve("file"), "x");
    assertEquals(List.of("node.data-dir: " + notDir + " exists and is not a directory"),
        problems(MINIMAL.replace("data/n2", notDir.toString())));
  }

  @Test
  void quantities() {
    assertEquals(Duration.ofMillis(250), Quantities.parseDuration("250ms"));
    assertEquals(Duration.ofHours(1), Quantities.parseDuration("1h"));
    assertEquals(Duration.ZERO, Quantities.parseDuration("0"));
    assertThrows(IllegalArgumentException.class, () -> Quantities.parseDuration("-1s"));
    assertThrows(IllegalArgumentException.class, () -> Quantities.parseDuration("5"));
    assertEquals(1L << 30, Quantities.parseSize("1GiB"));
    assertEquals(4096, Quantities.parseSize("4096"));
    assertEquals(4096, Quantities.parseSize("4096B"));
    assertThrows(IllegalArgumentException.class, () -> Quantities.parseSize("999999999999999GiB"));
    assertEquals("90s", Quantities.formatDuration(Duration.ofSeconds(90)));
    assertEquals("1500ms", Quantities.formatDuration(Duration.ofMillis(1500)));
    assertEquals("0ms", Quantities.formatDuration(Duration.ZERO));
    assertEquals("1536KiB", Quantities.formatSize(1536L << 10));
    assertEquals("1000", Quantities.formatSize(1000));
  }
}
