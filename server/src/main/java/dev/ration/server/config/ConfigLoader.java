package dev.ration.server.config;

import dev.ration.server.config.ConfigSchema.Cluster;
import dev.ration.server.config.ConfigSchema.Endpoint;
import dev.ration.server.config.ConfigSchema.GroupCommit;
import dev.ration.server.config.ConfigSchema.Ledger;
import dev.ration.server.config.ConfigSchema.Node;
import dev.ration.server.config.ConfigSchema.Quota;
import dev.ration.server.config.ConfigSchema.Raft;
import dev.ration.server.config.ConfigSchema.Root;
import dev.ration.server.config.ConfigSchema.Security;
import dev.ration.server.config.ConfigSchema.Setting;
import dev.ration.server.config.ConfigSchema.Shutdown;
import dev.ration.server.config.ConfigSchema.Tls;
import dev.ration.server.config.ConfigSchema.Values;
import dev.ration.server.consensus.ConsensusOptions;
import dev.ration.server.consensus.Peer;
import dev.ration.server.security.SecurityOptions;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.quota.QuotaOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * Loads a node's YAML configuration into a validated {@link ServerConfig}. Every setting, with
 * its default and bounds, is declared once in {@link ConfigSchema}; docs/CONFIGURATION.md
 * documents the same table, and a test fails when the two disagree.
 *
 * <p>Parsing is SnakeYAML's {@link SafeConstructor} (plain maps, lists and scalars, no types
 * from the document), with duplicate keys refused. Validation reads the tree as the schema
 * declares it, then applies the rules that relate settings to each other (named methods below),
 * collecting every problem, then throws one {@link ConfigException} listing them, each naming
 * its key path and bad value. Unknown keys are problems too: a misspelt optional key would
 * otherwise silently keep its default.
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

  private static final Pattern HOST = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9.-]{0,252})|\\[[0-9A-Fa-f:.]+\\]");

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
    Optional<ConfigSection> root = ConfigSection.root(document, problems);
    if (root.isEmpty()) {
      throw new ConfigException(source, problems);
    }
    Values v = new Values(baseDir, dataDirOverride);
    ConfigSchema.read(root.get(), Root.SECTION, v);
    Optional<Path> dataDir = dataDir(v);
    // The rules between settings. Each sees only values that were valid on their own, so a bad
    // value is reported once, not again against a setting it is compared with.
    for (Optional<String> problem : List.of(
        dataDirIsADirectory(dataDir),
        nodeIsAPeer(v),
        electionTimeoutsInOrder(v),
        batchFitsInASegment(v),
        usageOutlivesItsLookups(v),
        usageMaxRetentionCoversUsageRetention(v),
        defaultDeadlineWithinMax(v),
        retriesFindTheirFirstAnswer(v),
        insecureTlsNamesNoFiles(v))) {
      problem.ifPresent(problems::add);
    }
    if (!problems.isEmpty()) {
      throw new ConfigException(source, problems);
    }
    return assemble(v, dataDir.orElseThrow(), source);
  }

  /** {@code --data-dir} if given, else node.data-dir; empty if the node section is absent or bad. */
  private static Optional<Path> dataDir(Values v) {
    if (!v.present(Node.SECTION)) {
      return Optional.empty();
    }
    return v.dataDirOverride().map(d -> d.toAbsolutePath().normalize()).or(() -> v.get(Node.DATA_DIR));
  }

  private static Optional<String> dataDirIsADirectory(Optional<Path> dataDir) {
    return dataDir.filter(d -> Files.exists(d) && !Files.isDirectory(d))
        .map(d -> "node.data-dir: " + d + " exists and is not a directory");
  }

  private static Optional<String> nodeIsAPeer(Values v) {
    return both(v, Node.ID, Cluster.PEERS, (id, peers) -> peers.stream().anyMatch(p -> p.id().equals(id))
        ? Optional.empty()
        : Optional.of("node.id: '" + id + "' is not among cluster.peers (ids: "
            + String.join(", ", peers.stream().map(Peer::id).toList()) + ")"));
  }

  private static Optional<String> electionTimeoutsInOrder(Values v) {
    return both(v, Raft.ELECTION_MIN, Raft.ELECTION_MAX, (min, max) -> min.compareTo(max) <= 0
        ? Optional.empty()
        : Optional.of("raft.election-timeout-min: " + Quantities.formatDuration(min)
            + " is above raft.election-timeout-max " + Quantities.formatDuration(max)));
  }

  private static Optional<String> batchFitsInASegment(Values v) {
    return both(v, GroupCommit.MAX_BYTES, Raft.SEGMENT_SIZE, (batch, segment) -> batch <= segment
        ? Optional.empty()
        : Optional.of("group-commit.max-bytes: " + Quantities.formatSize(batch)
            + " is above raft.segment-size " + Quantities.formatSize(segment)
            + " (a batch must fit in one log segment)"));
  }

  /** An event id or a settled reservation is looked up in the usage log while it is remembered. */
  private static Optional<String> usageOutlivesItsLookups(Values v) {
    Optional<Duration> usage = v.get(Quota.USAGE_RETENTION);
    Optional<Duration> dedup = v.get(Quota.DEDUP_RETENTION);
    Optional<Duration> settled = v.get(Quota.SETTLED_RETENTION);
    if (usage.isEmpty() || dedup.isEmpty() || settled.isEmpty()
        || (usage.get().compareTo(dedup.get()) >= 0 && usage.get().compareTo(settled.get()) >= 0)) {
      return Optional.empty();
    }
    return Optional.of("ledger.quota.usage-retention: " + Quantities.formatDuration(usage.get())
        + " is shorter than dedup-retention " + Quantities.formatDuration(dedup.get())
        + " or settled-retention " + Quantities.formatDuration(settled.get())
        + " (an event id or a settled reservation would outlive its usage records)");
  }

  private static Optional<String> usageMaxRetentionCoversUsageRetention(Values v) {
    return both(v, Quota.USAGE_RETENTION, Quota.USAGE_MAX_RETENTION, (usage, max) -> max.compareTo(usage) >= 0
        ? Optional.empty()
        : Optional.of("ledger.quota.usage-max-retention: " + Quantities.formatDuration(max)
            + " is shorter than usage-retention " + Quantities.formatDuration(usage)));
  }

  private static Optional<String> defaultDeadlineWithinMax(Values v) {
    return both(v, Endpoint.DEFAULT_DEADLINE, Endpoint.MAX_DEADLINE, (deadline, max) -> deadline.compareTo(max) <= 0
        ? Optional.empty()
        : Optional.of("endpoint.default-deadline: " + Quantities.formatDuration(deadline)
            + " is above endpoint.max-deadline " + Quantities.formatDuration(max)));
  }

  /** A retry within its deadline must find the first answer still remembered. */
  private static Optional<String> retriesFindTheirFirstAnswer(Values v) {
    return both(v, Ledger.IDEMPOTENCY_RETENTION, Endpoint.MAX_DEADLINE, (retention, max) -> retention.compareTo(max) >= 0
        ? Optional.empty()
        : Optional.of("ledger.idempotency-retention: " + Quantities.formatDuration(retention)
            + " is below endpoint.max-deadline " + Quantities.formatDuration(max)
            + " (a retry within its deadline must find its first answer)"));
  }

  /** Certificate files with mode insecure are a half-done change either way; refuse to guess. */
  private static Optional<String> insecureTlsNamesNoFiles(Values v) {
    boolean files = v.get(Tls.CA).isPresent() || v.get(Tls.CERT).isPresent() || v.get(Tls.KEY).isPresent();
    return v.get(Tls.MODE).filter(mode -> mode == TlsOptions.Mode.INSECURE && files)
        .map(mode -> "tls.mode: is insecure but ca, cert or key is set; remove them or set mode: secure");
  }

  /** The rule's problem, if both settings have valid values; else none (theirs is reported). */
  private static <A, B> Optional<String> both(
      Values v, Setting<A> a, Setting<B> b, BiFunction<A, B, Optional<String>> rule) {
    return v.get(a).flatMap(x -> v.get(b).flatMap(y -> rule.apply(x, y)));
  }

  /** The configuration of a document without problems: every value it needs is present. */
  private static ServerConfig assemble(Values v, Path dataDir, String source) {
    QuotaOptions quota = new QuotaOptions(
        v.value(Quota.DEDUP_RETENTION).toMillis(), v.value(Quota.SETTLED_RETENTION).toMillis(),
        v.value(Quota.MAX_FUTURE_SKEW).toMillis(), v.value(Quota.MAX_RESERVATION_TTL).toMillis(),
        v.value(Quota.MAX_ITEMS).intValue(), v.value(Quota.MAX_SCAN).intValue(),
        v.value(Quota.USAGE_RETENTION).toMillis(), v.value(Quota.USAGE_MAX_RETENTION).toMillis(),
        v.value(Quota.AUDIT_RETENTION).toMillis());
    StateOptions state = new StateOptions(
        v.value(Ledger.IDEMPOTENCY_RETENTION).toMillis(), v.value(Ledger.MAX_LIMITS).intValue(),
        v.value(Ledger.MAX_LEASES).intValue(), v.value(Ledger.MAX_NAME_BYTES).intValue(), quota,
        v.value(Ledger.SECURITY_AUDIT_RETENTION).toMillis());
    ConsensusOptions consensus = new ConsensusOptions(
        v.value(Node.ID), v.value(Cluster.GROUP_ID), v.value(Cluster.PEERS), dataDir,
        v.value(Raft.ELECTION_MIN), v.value(Raft.ELECTION_MAX), v.value(Raft.REQUEST_TIMEOUT),
        v.value(Raft.SNAPSHOT_THRESHOLD), v.value(Raft.PURGE_PRESERVED), v.value(Raft.SEGMENT_SIZE),
        v.value(GroupCommit.MAX_COMMANDS).intValue(), v.value(GroupCommit.MAX_BYTES).intValue(),
        v.value(GroupCommit.LINGER), v.value(GroupCommit.MAX_ENTRIES_IN_FLIGHT).intValue(),
        v.value(GroupCommit.QUEUE_CAPACITY).intValue(),
        v.value(Ledger.TICK_INTERVAL), v.value(Ledger.TICK_MAX_ITEMS).intValue(), state);
    EndpointOptions endpoint = new EndpointOptions(
        v.value(Endpoint.MAX_FRAME_BYTES).intValue(), v.value(Endpoint.MAX_IN_FLIGHT_PER_CONNECTION).intValue(),
        v.value(Endpoint.MAX_CONNECTIONS).intValue(), v.value(Endpoint.DEFAULT_DEADLINE),
        v.value(Endpoint.MAX_DEADLINE), v.value(Endpoint.IO_THREADS).intValue(),
        v.value(Endpoint.MAX_IN_FLIGHT_PER_TENANT).intValue(), v.value(Endpoint.TENANT_FAIRNESS),
        v.value(Endpoint.HELLO_TIMEOUT), v.value(Endpoint.FRAME_TIMEOUT));
    Peer self = consensus.self();
    return new ServerConfig(consensus, self.clientAddress(), self.adminAddress(), endpoint,
        v.value(Shutdown.GRACE), tls(v, source), security(v));
  }

  /**
   * Without a tls section the node runs insecure, as every configuration written before TLS
   * existed did, and says so at start; {@code mode: insecure} says the same explicitly.
   */
  private static TlsOptions tls(Values v, String source) {
    if (!v.present(Tls.SECTION)) {
      return TlsOptions.insecure(source);
    }
    Duration reload = v.value(Tls.RELOAD_INTERVAL);
    if (v.value(Tls.MODE) == TlsOptions.Mode.INSECURE) {
      return new TlsOptions(TlsOptions.Mode.INSECURE, source, null, null, null, TlsOptions.ClientAuth.NONE, reload);
    }
    return new TlsOptions(TlsOptions.Mode.ON, source, v.value(Tls.CA), v.value(Tls.CERT), v.value(Tls.KEY),
        v.value(Tls.CLIENT_AUTH), reload);
  }

  /** Without a security section: insecure (said loudly at start; docs/SECURITY.md), other keys at their defaults. */
  private static SecurityOptions security(Values v) {
    SecurityOptions.Mode mode = v.present(Security.SECTION) ? v.value(Security.MODE) : SecurityOptions.Mode.INSECURE;
    return new SecurityOptions(mode, v.valueOrDefault(Security.BOOTSTRAP_ADMINS),
        v.valueOrDefault(Security.OPEN_HEALTH), v.valueOrDefault(Security.AUTH_FAILURES).intValue(),
        v.valueOrDefault(Security.BOOTSTRAP_TOKENS), v.valueOrDefault(Security.OPEN_METRICS));
  }

  private static final Pattern ENV_REFERENCE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?}");

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

  /**
   * Why {@code address} is not a dialable host:port, or empty if it is. Wildcard hosts are
   * refused: every peer dials these addresses, and 0.0.0.0 is not somewhere one can connect to.
   * Shared with the CLI.
   */
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
}
