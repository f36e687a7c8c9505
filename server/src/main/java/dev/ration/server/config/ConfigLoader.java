package dev.ration.server.config;

import dev.ration.server.security.SecurityOptions;

import dev.ration.server.consensus.ConsensusOptions;
import dev.ration.server.consensus.Peer;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.quota.QuotaOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * Loads a node's YAML configuration into a validated {@link ServerConfig}. The schema, every
 * default and every bound are documented in docs/CONFIGURATION.md; this class is their one
 * source of truth, so keep the two in step.
 *
 * <p>Parsing is SnakeYAML's {@link SafeConstructor} (plain maps, lists and scalars, no types
 * from the document), with duplicate keys refused. Validation walks the tree by hand and
 * collects every problem, then throws one {@link ConfigException} listing them, each naming its
 * key path and bad value. Unknown keys are problems too: a misspelt optional key would otherwise
 * silently keep its default.
 *
 * <p>Relative paths ({@code node.data-dir}) resolve against the directory of the config file, so
 * a file means the same thing whatever the working directory; for the embedded default and for
 * {@code --data-dir} they resolve against the working directory. Stateless; thread-safe.
 */
public final class ConfigLoader {

  /** Classpath resource (next to this class) of the embedded 3-node loopback cluster. */
  public static final String EMBEDDED_RESOURCE = "default-cluster.yaml";
  public static final String EMBEDDED_SOURCE = "embedded default configuration";
  /** Data directory of the embedded default, relative to the working directory; %s is the node id. */
  public static final String EMBEDDED_DATA_DIR = "run/local/%s";

  /** Where the embedded default (and the shipped examples) find their certificates. */
  public static final String EMBEDDED_CERTS_DIR = "${RATION_CERTS_DIR:-~/.ration/certs}";

  public static final String DEFAULT_GROUP_ID = "02511d47-d67c-49a3-9011-abb3109a44c1";

  // Defaults and bounds. Durations in millis unless named otherwise.
  static final Duration ELECTION_MIN_DEFAULT = Duration.ofSeconds(1);
  static final Duration ELECTION_MAX_DEFAULT = Duration.ofSeconds(2);
  static final Duration ELECTION_FLOOR = Duration.ofMillis(100);
  static final Duration ELECTION_CEILING = Duration.ofSeconds(60);
  static final Duration REQUEST_TIMEOUT_DEFAULT = Duration.ofSeconds(3);
  static final long MIB = 1L << 20;
  static final int MAX_PEERS = 9;

  private static final Pattern NODE_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
  private static final Pattern HOST = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9.-]{0,252})|\\[[0-9A-Fa-f:.]+\\]");
  private static final Pattern CANONICAL_UUID =
      Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

  private ConfigLoader() {}

  /** Loads {@code file}; relative paths in it resolve against its directory. */
  public static ServerConfig load(Path file) throws ConfigException {
    return load(file, Optional.empty());
  }

  /**
   * Loads {@code file}; {@code dataDirOverride} (from {@code --data-dir}, resolved against the
   * working directory) replaces {@code node.data-dir}.
   */
  public static ServerConfig load(Path file, Optional<Path> dataDirOverride) throws ConfigException {
    String source = file.toString();
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new ConfigException(source, List.of("cannot read: no such file"));
    } catch (IOException | RuntimeException e) {
      throw new ConfigException(source, List.of("cannot read: " + e));
    }
    Path baseDir = file.toAbsolutePath().normalize().getParent();
    Object document = parseYaml(text, source);
    return validate(document, source, baseDir, dataDirOverride);
  }

  /**
   * The embedded 3-node loopback cluster (clients 127.0.0.1:7101-7103, raft 7201-7203, admin
   * 7301-7303) as node {@code nodeId}, with data under {@code run/local/<id>} of the working
   * directory unless {@code dataDirOverride} is given.
   */
  public static ServerConfig loadEmbedded(String nodeId, Optional<Path> dataDirOverride)
      throws ConfigException {
    Object document = parseYaml(embeddedText(), EMBEDDED_SOURCE);
    if (!(document instanceof Map<?, ?> map)) {
      throw new IllegalStateException("embedded configuration is not a mapping: " + document);
    }
    Map<Object, Object> withNode = new LinkedHashMap<>(map);
    Map<String, Object> node = new LinkedHashMap<>();
    node.put("id", nodeId);
    node.put("data-dir", String.format(Locale.ROOT, EMBEDDED_DATA_DIR, nodeId));
    withNode.put("node", node);
    // The same transport security as config/cluster-3, with this node's certificate.
    Map<String, Object> tls = new LinkedHashMap<>();
    tls.put("mode", "secure");
    tls.put("ca", EMBEDDED_CERTS_DIR + "/ca.crt");
    tls.put("cert", EMBEDDED_CERTS_DIR + "/node." + nodeId + ".crt");
    tls.put("key", EMBEDDED_CERTS_DIR + "/node." + nodeId + ".key");
    tls.put("client-auth", "required");
    tls.put("reload-interval", "10s");
    withNode.put("tls", tls);
    return validate(withNode, EMBEDDED_SOURCE, Path.of("").toAbsolutePath(), dataDirOverride);
  }

  /** Parses YAML text already in memory; for tests and tools. */
  public static ServerConfig parse(String yaml, String source, Path baseDir, Optional<Path> dataDirOverride)
      throws ConfigException {
    return validate(parseYaml(yaml, source), source, baseDir.toAbsolutePath().normalize(), dataDirOverride);
  }

  /** The text of the embedded default configuration (without its node section). */
  public static String embeddedText() {
    try (InputStream in = ConfigLoader.class.getResourceAsStream(EMBEDDED_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("resource " + EMBEDDED_RESOURCE + " missing next to " + ConfigLoader.class);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read resource " + EMBEDDED_RESOURCE, e);
    }
  }

  private static Object parseYaml(String text, String source) throws ConfigException {
    LoaderOptions options = new LoaderOptions();
    options.setAllowDuplicateKeys(false);
    options.setAllowRecursiveKeys(false);
    options.setMaxAliasesForCollections(20);
    options.setCodePointLimit(1 << 20);
    Yaml yaml = new Yaml(new SafeConstructor(options));
    try {
      Object document = yaml.load(text);
      if (document == null) {
        throw new ConfigException(source, List.of("the file is empty"));
      }
      return document;
    } catch (YAMLException e) {
      throw new ConfigException(source, List.of("not valid YAML: " + e.getMessage().replace('\n', ' ').trim()));
    }
  }

  private static ServerConfig validate(
      Object document, String source, Path baseDir, Optional<Path> dataDirOverride) throws ConfigException {
    List<String> problems = new ArrayList<>();
    Optional<ConfigSection> rootOpt = ConfigSection.root(document, problems);
    if (rootOpt.isEmpty()) {
      throw new ConfigException(source, problems);
    }
    ConfigSection root = rootOpt.get();

    // node
    Optional<ConfigSection> nodeSec = root.section("node", true);
    Optional<String> nodeId = Optional.empty();
    Optional<Path> dataDir = Optional.empty();
    if (nodeSec.isPresent()) {
      ConfigSection n = nodeSec.get();
      nodeId = n.string("id", true).filter(id -> validNodeId(n, "id", id));
      Optional<String> dirText = n.string("data-dir", dataDirOverride.isEmpty());
      if (dataDirOverride.isPresent()) {
        dataDir = Optional.of(dataDirOverride.get().toAbsolutePath().normalize());
      } else {
        dataDir = dirText.flatMap(d -> resolveDir(n, "data-dir", d, baseDir));
      }
      n.rejectUnknownKeys();
    }
    dataDir.ifPresent(d -> {
      if (Files.exists(d) && !Files.isDirectory(d)) {
        problems.add("node.data-dir: " + d + " exists and is not a directory");
      }
    });

    // cluster
    Optional<ConfigSection> clusterSec = root.section("cluster", true);
    String groupId = DEFAULT_GROUP_ID;
    List<Peer> peers = new ArrayList<>();
    boolean peersValid = false;
    if (clusterSec.isPresent()) {
      ConfigSection c = clusterSec.get();
      Optional<String> g = c.string("group-id", false);
      if (g.isPresent()) {
        if (validUuid(g.get())) {
          groupId = g.get();
        } else {
          c.problem("group-id", "'" + g.get() + "' is not a UUID (lower-case, e.g. " + DEFAULT_GROUP_ID + ")");
        }
      }
      peersValid = readPeers(c, peers);
      c.rejectUnknownKeys();
    }
    if (peersValid && nodeId.isPresent()) {
      String id = nodeId.get();
      if (peers.stream().noneMatch(p -> p.id().equals(id))) {
        problems.add("node.id: '" + id + "' is not among cluster.peers (ids: "
            + String.join(", ", peers.stream().map(Peer::id).toList()) + ")");
      }
    }

    // raft
    ConfigSection raft = root.section("raft", false).orElseGet(() -> empty("raft", problems));
    Optional<Duration> electionMin = raft.duration("election-timeout-min", ELECTION_MIN_DEFAULT, ELECTION_FLOOR, ELECTION_CEILING);
    Optional<Duration> electionMax = raft.duration("election-timeout-max", ELECTION_MAX_DEFAULT, ELECTION_FLOOR, ELECTION_CEILING);
    Optional<Duration> requestTimeout = raft.duration("request-timeout", REQUEST_TIMEOUT_DEFAULT, Duration.ofMillis(100), Duration.ofMinutes(5));
    Optional<Long> snapshotThreshold = raft.integer("snapshot-threshold-entries", 100_000, 100, 1_000_000_000);
    Optional<Long> purgePreserved = raft.integer("purge-preserved-entries", 10_000, 0, 1_000_000_000);
    Optional<Long> segmentSize = raft.size("segment-size", 32 * MIB, MIB, 1L << 30);
    raft.rejectUnknownKeys();
    if (electionMin.isPresent() && electionMax.isPresent() && electionMin.get().compareTo(electionMax.get()) > 0) {
      problems.add("raft.election-timeout-min: " + Quantities.formatDuration(electionMin.get())
          + " is above raft.election-timeout-max " + Quantities.formatDuration(electionMax.get()));
    }

    // group-commit
    ConfigSection gc = root.section("group-commit", false).orElseGet(() -> empty("group-commit", problems));
    Optional<Long> maxCommands = gc.integer("max-commands", 1024, 1, 65_536);
    Optional<Long> maxBytes = gc.size("max-bytes", MIB, 1L << 10, 16 * MIB);
    Optional<Duration> linger = gc.duration("linger", Duration.ofMillis(1), Duration.ZERO, Duration.ofSeconds(1));
    Optional<Long> inFlight = gc.integer("max-entries-in-flight", 4, 1, 1024);
    Optional<Long> queueCapacity = gc.integer("queue-capacity", 16_384, 1, 1 << 20);
    gc.rejectUnknownKeys();
    if (maxBytes.isPresent() && segmentSize.isPresent() && maxBytes.get() > segmentSize.get()) {
      problems.add("group-commit.max-bytes: " + Quantities.formatSize(maxBytes.get())
          + " is above raft.segment-size " + Quantities.formatSize(segmentSize.get())
          + " (a batch must fit in one log segment)");
    }

    // ledger
    ConfigSection ledger = root.section("ledger", false).orElseGet(() -> empty("ledger", problems));
    Optional<Duration> tickInterval = ledger.duration("tick-interval", Duration.ofMillis(250), Duration.ofMillis(10), Duration.ofSeconds(60));
    Optional<Long> tickMaxItems = ledger.integer("tick-max-items", 1000, 1, 100_000);
    Optional<Duration> retention = ledger.duration("idempotency-retention", Duration.ofSeconds(60), Duration.ofSeconds(1), Duration.ofHours(24));
    Optional<Long> maxLimits = ledger.integer("max-limits", 100_000, 1, 10_000_000);
    Optional<Long> maxLeases = ledger.integer("max-leases-per-limit", 10_000, 1, 1_000_000);
    Optional<Duration> securityAuditRetention = ledger.duration("security-audit-retention",
        Duration.ofMillis(StateOptions.DEFAULT_SECURITY_AUDIT_RETENTION_MILLIS), Duration.ofMinutes(1),
        Duration.ofHours(24L * 3650));
    Optional<Long> maxNameBytes = ledger.integer("max-name-bytes", 128, 1, StateOptions.MAX_NAME_BYTES_CEILING);
    ConfigSection quota = ledger.section("quota", false).orElseGet(() -> empty("ledger.quota", problems));
    Optional<Duration> dedupRetention = quota.duration("dedup-retention", Duration.ofHours(1), Duration.ofSeconds(1), Duration.ofDays(7));
    Optional<Duration> settledRetention = quota.duration("settled-retention", Duration.ofHours(1), Duration.ofSeconds(1), Duration.ofDays(7));
    Optional<Duration> maxFutureSkew = quota.duration("max-future-skew", Duration.ofMinutes(1), Duration.ZERO, Duration.ofHours(1));
    Optional<Duration> maxReservationTtl = quota.duration("max-reservation-ttl", Duration.ofDays(7),
        Duration.ofMillis(QuotaOptions.MIN_RESERVATION_TTL_MILLIS), Duration.ofDays(30));
    Optional<Long> maxItems = quota.integer("max-items-per-reservation", 16, 1, 1024);
    Optional<Long> maxScan = quota.integer("max-scan-records", 100_000, 1_000, 10_000_000);
    Optional<Duration> usageRetention = quota.duration("usage-retention", Duration.ofHours(24), Duration.ofSeconds(1), Duration.ofDays(3650));
    Optional<Duration> usageMaxRetention = quota.duration("usage-max-retention", Duration.ofDays(7), Duration.ofSeconds(1), Duration.ofDays(3650));
    Optional<Duration> auditRetention = quota.duration("audit-retention", Duration.ofDays(365), Duration.ofSeconds(1), Duration.ofDays(3650));
    if (usageRetention.isPresent() && dedupRetention.isPresent() && settledRetention.isPresent()
        && (usageRetention.get().compareTo(dedupRetention.get()) < 0
            || usageRetention.get().compareTo(settledRetention.get()) < 0)) {
      problems.add("ledger.quota.usage-retention: " + Quantities.formatDuration(usageRetention.get())
          + " is shorter than dedup-retention " + Quantities.formatDuration(dedupRetention.get())
          + " or settled-retention " + Quantities.formatDuration(settledRetention.get())
          + " (an event id or a settled reservation would outlive its usage records)");
    }
    if (usageRetention.isPresent() && usageMaxRetention.isPresent()
        && usageMaxRetention.get().compareTo(usageRetention.get()) < 0) {
      problems.add("ledger.quota.usage-max-retention: "
          + Quantities.formatDuration(usageMaxRetention.get()) + " is shorter than usage-retention "
          + Quantities.formatDuration(usageRetention.get()));
    }
    quota.rejectUnknownKeys();
    ledger.rejectUnknownKeys();

    // endpoint
    ConfigSection ep = root.section("endpoint", false).orElseGet(() -> empty("endpoint", problems));
    Optional<Long> maxFrame = ep.size("max-frame-bytes", MIB, 1L << 10, 64 * MIB);
    Optional<Long> perConn = ep.integer("max-in-flight-per-connection", 1024, 1, 65_536);
    Optional<Long> maxConns = ep.integer("max-connections", 1024, 1, 65_536);
    Optional<Duration> defaultDeadline = ep.duration("default-deadline", Duration.ofSeconds(5), Duration.ofMillis(10), Duration.ofMinutes(10));
    Optional<Duration> maxDeadline = ep.duration("max-deadline", Duration.ofSeconds(60), Duration.ofMillis(10), Duration.ofHours(1));
    Optional<Long> ioThreads = ep.integer("io-threads", 2, 1, 64);
    Optional<Long> perTenant = ep.integer("max-in-flight-per-tenant", 256, 1, 65_536);
    Optional<Duration> helloTimeout = ep.duration("hello-timeout", EndpointOptions.DEFAULT_HELLO_TIMEOUT, Duration.ofMillis(100), Duration.ofMinutes(10));
    Optional<Duration> frameTimeout = ep.duration("frame-timeout", EndpointOptions.DEFAULT_FRAME_TIMEOUT, Duration.ofMillis(100), Duration.ofHours(1));
    Optional<String> fairnessText = ep.string("tenant-fairness", false);
    TenantFairness fairness =
        fairnessText.isPresent() ? TenantFairness.parse(fairnessText.get()) : TenantFairness.ALL;
    if (fairness == null) {
      problems.add("endpoint.tenant-fairness: \"" + fairnessText.get()
          + "\" is not one of all, quota, none");
      fairness = TenantFairness.ALL;
    }
    ep.rejectUnknownKeys();
    if (defaultDeadline.isPresent() && maxDeadline.isPresent() && defaultDeadline.get().compareTo(maxDeadline.get()) > 0) {
      problems.add("endpoint.default-deadline: " + Quantities.formatDuration(defaultDeadline.get())
          + " is above endpoint.max-deadline " + Quantities.formatDuration(maxDeadline.get()));
    }
    if (retention.isPresent() && maxDeadline.isPresent() && retention.get().compareTo(maxDeadline.get()) < 0) {
      problems.add("ledger.idempotency-retention: " + Quantities.formatDuration(retention.get())
          + " is below endpoint.max-deadline " + Quantities.formatDuration(maxDeadline.get())
          + " (a retry within its deadline must find its first answer)");
    }

    // shutdown
    ConfigSection sd = root.section("shutdown", false).orElseGet(() -> empty("shutdown", problems));
    Optional<Duration> grace = sd.duration("grace", Duration.ofSeconds(5), Duration.ZERO, Duration.ofMinutes(10));
    sd.rejectUnknownKeys();

    // tls
    Optional<TlsOptions> tls = readTls(root, source, baseDir);
    // security (absent: insecure, said loudly at start; docs/SECURITY.md)
    Optional<ConfigSection> secSec = root.section("security", false);
    Optional<SecurityOptions.Mode> securityMode = Optional.of(SecurityOptions.Mode.INSECURE);
    Optional<List<String>> bootstrapAdmins = Optional.of(List.of());
    Optional<List<SecurityOptions.BootstrapToken>> bootstrapTokens = Optional.of(List.of());
    Optional<Boolean> openHealth = Optional.of(true);
    Optional<Boolean> openMetrics = Optional.of(false);
    Optional<Long> authFailures = Optional.of(10L);
    if (secSec.isPresent()) {
      ConfigSection sec = secSec.get();
      Optional<String> mode = sec.string("mode", true);
      securityMode = mode.flatMap(m -> switch (m) {
        case "secure" -> Optional.of(SecurityOptions.Mode.SECURE);
        case "insecure" -> Optional.of(SecurityOptions.Mode.INSECURE);
        default -> {
          sec.problem("mode", "'" + m + "' is neither secure nor insecure");
          yield Optional.empty();
        }
      });
      bootstrapAdmins = sec.stringList("bootstrap-admins");
      Optional<List<String>> lines = sec.stringList("bootstrap-tokens");
      if (lines.isPresent()) {
        List<SecurityOptions.BootstrapToken> parsed = new ArrayList<>();
        for (String line : lines.get()) {
          int at = line.lastIndexOf('@');
          if (at < 1) {
            sec.problem("bootstrap-tokens", "'" + line + "' is not <identity>@rtnh.... (as printed"
                + " by ration token bootstrap)");
            continue;
          }
          try {
            Object[] p = dev.ration.server.security.Tokens.parseHashLine(line.substring(at + 1));
            parsed.add(new SecurityOptions.BootstrapToken(line.substring(0, at), (Long) p[0],
                (byte[]) p[1], (byte[]) p[2]));
          } catch (IllegalArgumentException e) {
            sec.problem("bootstrap-tokens", e.getMessage());
          }
        }
        bootstrapTokens = Optional.of(parsed);
      } else {
        bootstrapTokens = Optional.empty();
      }
      // Since open-metrics exists, open-health-endpoints covers /health and /ready only; a file
      // that sets it still parses and keeps those probes as it asked.
      openHealth = sec.bool("open-health-endpoints", true);
      openMetrics = sec.bool("open-metrics", false);
      authFailures = sec.integer("auth-failures-per-minute", 10, 1, 10_000);
      sec.rejectUnknownKeys();
    }

    root.rejectUnknownKeys();

    if (!problems.isEmpty()) {
      throw new ConfigException(source, problems);
    }
    // Every Optional below is present: any absence recorded a problem above.
    QuotaOptions quotaOptions = new QuotaOptions(
        dedupRetention.get().toMillis(), settledRetention.get().toMillis(), maxFutureSkew.get().toMillis(),
        maxReservationTtl.get().toMillis(), maxItems.get().intValue(), maxScan.get().intValue(),
        usageRetention.get().toMillis(), usageMaxRetention.get().toMillis(),
        auditRetention.get().toMillis());
    StateOptions state = new StateOptions(
        retention.get().toMillis(), maxLimits.get().intValue(), maxLeases.get().intValue(),
        maxNameBytes.get().intValue(), quotaOptions, securityAuditRetention.get().toMillis());
    ConsensusOptions consensus = new ConsensusOptions(
        nodeId.get(), groupId, peers, dataDir.get(),
        electionMin.get(), electionMax.get(), requestTimeout.get(),
        snapshotThreshold.get(), purgePreserved.get(), segmentSize.get(),
        maxCommands.get().intValue(), maxBytes.get().intValue(), linger.get(),
        inFlight.get().intValue(), queueCapacity.get().intValue(),
        tickInterval.get(), tickMaxItems.get().intValue(), state);
    EndpointOptions endpoint = new EndpointOptions(
        maxFrame.get().intValue(), perConn.get().intValue(), maxConns.get().intValue(),
        defaultDeadline.get(), maxDeadline.get(), ioThreads.get().intValue(), perTenant.get().intValue(),
        fairness, helloTimeout.get(), frameTimeout.get());
    Peer self = consensus.self();
    SecurityOptions security = new SecurityOptions(securityMode.get(), bootstrapAdmins.get(),
        openHealth.get(), authFailures.get().intValue(), bootstrapTokens.get(), openMetrics.get());
    return new ServerConfig(consensus, self.clientAddress(), self.adminAddress(), endpoint, grace.get(),
        tls.get(), security);
  }

  /**
   * The tls section. Absent, the node runs insecure, as every configuration written before TLS
   * existed did, and says so at start; {@code mode: insecure} says the same explicitly.
   */
  private static Optional<TlsOptions> readTls(ConfigSection root, String source, Path baseDir) {
    Optional<ConfigSection> sec = root.section("tls", false);
    if (sec.isEmpty()) {
      return Optional.of(TlsOptions.insecure(source));
    }
    ConfigSection t = sec.get();
    Optional<String> modeText = t.string("mode", true);
    Optional<TlsOptions.Mode> mode = Optional.empty();
    if (modeText.isPresent()) {
      switch (modeText.get()) {
        case "secure" -> mode = Optional.of(TlsOptions.Mode.ON);
        case "insecure" -> mode = Optional.of(TlsOptions.Mode.INSECURE);
        default -> t.problem("mode", "'" + modeText.get() + "' is not one of secure, insecure");
      }
    }
    boolean on = mode.orElse(TlsOptions.Mode.ON) == TlsOptions.Mode.ON;
    Optional<Path> ca = t.string("ca", on).flatMap(v -> tlsPath(t, "ca", v, baseDir));
    Optional<Path> cert = t.string("cert", on).flatMap(v -> tlsPath(t, "cert", v, baseDir));
    Optional<Path> key = t.string("key", on).flatMap(v -> tlsPath(t, "key", v, baseDir));
    Optional<String> authText = t.string("client-auth", false);
    TlsOptions.ClientAuth auth = TlsOptions.ClientAuth.REQUIRED;
    if (authText.isPresent()) {
      switch (authText.get()) {
        case "none" -> auth = TlsOptions.ClientAuth.NONE;
        case "optional" -> auth = TlsOptions.ClientAuth.OPTIONAL;
        case "required" -> auth = TlsOptions.ClientAuth.REQUIRED;
        default -> t.problem("client-auth", "'" + authText.get() + "' is not one of none, optional, required");
      }
    }
    Optional<Duration> reload = t.duration("reload-interval", TlsOptions.RELOAD_INTERVAL_DEFAULT,
        Duration.ofMillis(100), Duration.ofHours(1));
    t.rejectUnknownKeys();
    if (mode.isEmpty() || reload.isEmpty()) {
      return Optional.empty();
    }
    if (!on) {
      if (ca.isPresent() || cert.isPresent() || key.isPresent()) {
        t.problem("mode", "is insecure but ca, cert or key is set; remove them or set mode: secure");
        return Optional.empty();
      }
      return Optional.of(new TlsOptions(TlsOptions.Mode.INSECURE, source, null, null, null,
          TlsOptions.ClientAuth.NONE, reload.get()));
    }
    if (ca.isEmpty() || cert.isEmpty() || key.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new TlsOptions(TlsOptions.Mode.ON, source, ca.get(), cert.get(), key.get(), auth, reload.get()));
  }

  private static final Pattern ENV_REFERENCE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?}");

  /**
   * A certificate or key path: {@code ${NAME}} and {@code ${NAME:-default}} take an environment
   * variable, a leading {@code ~/} is the user's home directory, and a relative path resolves
   * against the config file's directory. The shipped examples use
   * {@code ${RATION_CERTS_DIR:-~/.ration/certs}}, the directory the CLI reads too.
   */
  private static Optional<Path> tlsPath(ConfigSection s, String key, String text, Path baseDir) {
    return expand(text, System::getenv).map(Optional::of).orElseGet(() -> {
      s.problem(key, "'" + text + "' names an environment variable that is not set and has no default (${NAME:-default})");
      return Optional.empty();
    }).flatMap(expanded -> {
      String home = System.getProperty("user.home");
      String withHome = expanded.equals("~") ? home
          : expanded.startsWith("~/") ? home + expanded.substring(1) : expanded;
      return resolveDir(s, key, withHome, baseDir);
    });
  }

  /** {@code text} with every ${NAME} / ${NAME:-default} replaced; empty if one is unset without default. */
  static Optional<String> expand(String text, java.util.function.Function<String, String> env) {
    java.util.regex.Matcher m = ENV_REFERENCE.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String value = env.apply(m.group(1));
      if (value == null || value.isEmpty()) {
        if (m.group(2) == null) {
          return Optional.empty();
        }
        value = m.group(2);
      }
      m.appendReplacement(out, java.util.regex.Matcher.quoteReplacement(value));
    }
    m.appendTail(out);
    return Optional.of(out.toString());
  }

  /** Reads cluster.peers into {@code out}; true if every entry is valid and none collide. */
  private static boolean readPeers(ConfigSection cluster, List<Peer> out) {
    Optional<List<ConfigSection>> list = cluster.sectionList("peers");
    if (list.isEmpty()) {
      return false;
    }
    List<ConfigSection> entries = list.get();
    if (entries.isEmpty()) {
      cluster.problem("peers", "must list at least one peer");
      return false;
    }
    if (entries.size() > MAX_PEERS) {
      cluster.problem("peers", entries.size() + " peers is above the maximum " + MAX_PEERS);
    }
    boolean valid = true;
    Map<String, String> idToPath = new HashMap<>();
    Map<String, String> addressToPath = new HashMap<>();
    for (ConfigSection p : entries) {
      Optional<String> id = p.string("id", true).filter(v -> validNodeId(p, "id", v));
      Optional<String> raft = p.string("raft", true).filter(v -> validAddress(p, "raft", v));
      Optional<String> client = p.string("client", true).filter(v -> validAddress(p, "client", v));
      Optional<String> admin = p.string("admin", true).filter(v -> validAddress(p, "admin", v));
      p.rejectUnknownKeys();
      if (id.isPresent()) {
        String earlier = idToPath.putIfAbsent(id.get(), p.pathOf("id"));
        if (earlier != null) {
          p.problem("id", "'" + id.get() + "' duplicates " + earlier);
          valid = false;
        }
      }
      for (var entry : List.of(Map.entry("raft", raft), Map.entry("client", client), Map.entry("admin", admin))) {
        if (entry.getValue().isPresent()) {
          String key = entry.getValue().get().toLowerCase(Locale.ROOT);
          String earlier = addressToPath.putIfAbsent(key, p.pathOf(entry.getKey()));
          if (earlier != null) {
            p.problem(entry.getKey(), entry.getValue().get() + " duplicates " + earlier);
            valid = false;
          }
        }
      }
      if (id.isEmpty() || raft.isEmpty() || client.isEmpty() || admin.isEmpty()) {
        valid = false;
      } else {
        out.add(new Peer(id.get(), raft.get(), client.get(), admin.get()));
      }
    }
    return valid && entries.size() <= MAX_PEERS;
  }

  private static boolean validNodeId(ConfigSection s, String key, String id) {
    if (!NODE_ID.matcher(id).matches()) {
      s.problem(key, "'" + id + "' is not a valid node id (1-64 of A-Z a-z 0-9 _ . -, starting with a letter or digit)");
      return false;
    }
    return true;
  }

  /**
   * A dialable host:port. Wildcard hosts are refused: every peer dials these addresses, and
   * 0.0.0.0 is not somewhere one can connect to.
   */
  static boolean validAddress(ConfigSection s, String key, String address) {
    Optional<String> why = addressProblem(address);
    why.ifPresent(w -> s.problem(key, "'" + address + "' " + w));
    return why.isEmpty();
  }

  /** Why {@code address} is not a dialable host:port, or empty if it is. Shared with the CLI. */
  public static Optional<String> addressProblem(String address) {
    int colon = address.lastIndexOf(':');
    if (colon <= 0 || colon == address.length() - 1) {
      return Optional.of("is not host:port");
    }
    String host = address.substring(0, colon);
    String portText = address.substring(colon + 1);
    if (!HOST.matcher(host).matches()) {
      return Optional.of("is not host:port (bad host '" + host + "'; write IPv6 as [::1]:port)");
    }
    if (host.equals("0.0.0.0") || host.equals("[::]")) {
      return Optional.of("uses a wildcard host; peers need an address they can dial");
    }
    if (!portText.matches("\\d{1,5}") || Integer.parseInt(portText) < 1 || Integer.parseInt(portText) > 65_535) {
      return Optional.of("has a bad port '" + portText + "' (1-65535)");
    }
    return Optional.empty();
  }

  private static Optional<Path> resolveDir(ConfigSection s, String key, String text, Path baseDir) {
    try {
      Path p = Path.of(text);
      return Optional.of((p.isAbsolute() ? p : baseDir.resolve(p)).normalize());
    } catch (InvalidPathException e) {
      s.problem(key, "'" + text + "' is not a valid path: " + e.getReason());
      return Optional.empty();
    }
  }

  private static boolean validUuid(String text) {
    if (!CANONICAL_UUID.matcher(text).matches()) {
      return false;
    }
    try {
      UUID.fromString(text);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static ConfigSection empty(String path, List<String> problems) {
    return ConfigSection.of(path, Map.of(), problems).orElseThrow();
  }
}
