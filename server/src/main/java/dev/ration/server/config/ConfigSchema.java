package dev.ration.server.config;

import dev.ration.server.consensus.Peer;
import dev.ration.server.security.SecurityOptions;
import dev.ration.server.security.Tokens;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.quota.QuotaOptions;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * What a node's YAML may say: every setting declared once, with its key, type, default, bounds
 * and meaning, in sections nested as the YAML nests them. {@link #read} is the one loop that
 * reads and checks them all, so a setting's bounds live only in its declaration. The table is
 * documented in docs/CONFIGURATION.md; ConfigSchemaDocTest fails when the two disagree.
 *
 * <p>A type checks one value on its own. Rules that relate several settings (election timeouts
 * in order, the node among its peers, ...) are not part of any type: {@link ConfigLoader} checks
 * them, each by name, after the table is read, and only on values that were valid, so a bad value
 * is reported once.
 */
final class ConfigSchema {

  private ConfigSchema() {}

  static final long MIB = 1L << 20;

  // ---------------------------------------------------------------- the table

  static final class Node {
    static final Setting<String> ID = required("id", nodeId(), "this node; one of cluster.peers[].id");
    static final Setting<Path> DATA_DIR = requiredWhen("data-dir", dataDirectory(),
        new Requirement("unless `--data-dir`", v -> v.dataDirOverride().isEmpty()),
        "Raft log, RocksDB state and snapshots");
    static final Section SECTION = section("node", Presence.REQUIRED, ID, DATA_DIR);
  }

  static final class Cluster {
    static final Setting<String> GROUP_ID = optional("group-id", uuid(), ConfigLoader.DEFAULT_GROUP_ID,
        "Raft group id");
    static final Setting<String> PEER_ID = required("id", nodeId(), "member id");
    static final Setting<String> PEER_RAFT = required("raft", address(), "Raft (gRPC) address");
    static final Setting<String> PEER_CLIENT = required("client", address(), "client protocol address");
    static final Setting<String> PEER_ADMIN = required("admin", address(), "HTTP admin address");
    static final Setting<List<Peer>> PEERS = required("peers",
        new PeersType(9, PEER_ID, PEER_RAFT, PEER_CLIENT, PEER_ADMIN), "the members");
    static final Section SECTION = section("cluster", Presence.REQUIRED, GROUP_ID, PEERS);
  }

  static final class Raft {
    static final Setting<Duration> ELECTION_MIN = optional("election-timeout-min",
        duration(Duration.ofMillis(100), Duration.ofSeconds(60)), Duration.ofSeconds(1),
        "shortest time without a leader before a follower starts an election");
    static final Setting<Duration> ELECTION_MAX = optional("election-timeout-max",
        duration(Duration.ofMillis(100), Duration.ofSeconds(60)), Duration.ofSeconds(2),
        "longest time without a leader before a follower starts an election");
    static final Setting<Duration> REQUEST_TIMEOUT = optional("request-timeout",
        duration(Duration.ofMillis(100), Duration.ofMinutes(5)), Duration.ofSeconds(3),
        "Raft RPC timeout");
    static final Setting<Long> SNAPSHOT_THRESHOLD = optional("snapshot-threshold-entries",
        integer(100, 1_000_000_000), 100_000L, "applied entries between snapshots");
    static final Setting<Long> PURGE_PRESERVED = optional("purge-preserved-entries",
        integer(0, 1_000_000_000), 10_000L, "log entries kept behind a snapshot");
    static final Setting<Long> SEGMENT_SIZE = optional("segment-size", size(MIB, 1L << 30), 32 * MIB,
        "Raft log segment size");
    static final Section SECTION = section("raft", Presence.DEFAULTS, ELECTION_MIN, ELECTION_MAX,
        REQUEST_TIMEOUT, SNAPSHOT_THRESHOLD, PURGE_PRESERVED, SEGMENT_SIZE);
  }

  static final class GroupCommit {
    static final Setting<Long> MAX_COMMANDS = optional("max-commands", integer(1, 65_536), 1024L,
        "commands per Raft entry");
    static final Setting<Long> MAX_BYTES = optional("max-bytes", size(1L << 10, 16 * MIB), MIB,
        "bytes per Raft entry");
    static final Setting<Duration> LINGER = optional("linger",
        duration(Duration.ZERO, Duration.ofSeconds(1)), Duration.ofMillis(1),
        "how long the leader waits to fill a batch");
    static final Setting<Long> MAX_ENTRIES_IN_FLIGHT = optional("max-entries-in-flight",
        integer(1, 1024), 4L, "Raft entries proposed and not yet committed");
    static final Setting<Long> QUEUE_CAPACITY = optional("queue-capacity", integer(1, 1 << 20),
        16_384L, "commands waiting for group commit");
    static final Section SECTION = section("group-commit", Presence.DEFAULTS, MAX_COMMANDS, MAX_BYTES,
        LINGER, MAX_ENTRIES_IN_FLIGHT, QUEUE_CAPACITY);
  }

  static final class Quota {
    static final Setting<Duration> DEDUP_RETENTION = optional("dedup-retention",
        duration(Duration.ofSeconds(1), Duration.ofDays(7)), Duration.ofHours(1),
        "how long a usage event id is remembered");
    static final Setting<Duration> SETTLED_RETENTION = optional("settled-retention",
        duration(Duration.ofSeconds(1), Duration.ofDays(7)), Duration.ofHours(1),
        "how long a settled reservation is remembered");
    static final Setting<Duration> MAX_FUTURE_SKEW = optional("max-future-skew",
        duration(Duration.ZERO, Duration.ofHours(1)), Duration.ofMinutes(1),
        "how far ahead of log time an event time may be");
    static final Setting<Duration> MAX_RESERVATION_TTL = optional("max-reservation-ttl",
        duration(Duration.ofMillis(QuotaOptions.MIN_RESERVATION_TTL_MILLIS), Duration.ofDays(30)),
        Duration.ofDays(7), "longest reservation lifetime");
    static final Setting<Long> MAX_ITEMS = optional("max-items-per-reservation", integer(1, 1024), 16L,
        "resources one reservation may name");
    static final Setting<Long> MAX_SCAN = optional("max-scan-records", integer(1_000, 10_000_000),
        100_000L, "records one query or reconciliation reads");
    static final Setting<Duration> USAGE_RETENTION = optional("usage-retention",
        duration(Duration.ofSeconds(1), Duration.ofDays(3650)), Duration.ofHours(24),
        "how long a usage record is kept at least");
    static final Setting<Duration> USAGE_MAX_RETENTION = optional("usage-max-retention",
        duration(Duration.ofSeconds(1), Duration.ofDays(3650)), Duration.ofDays(7),
        "how long a usage record is kept at most");
    static final Setting<Duration> AUDIT_RETENTION = optional("audit-retention",
        duration(Duration.ofSeconds(1), Duration.ofDays(3650)), Duration.ofDays(365),
        "how long a quota audit record is kept");
    static final Section SECTION = section("quota", Presence.DEFAULTS, DEDUP_RETENTION,
        SETTLED_RETENTION, MAX_FUTURE_SKEW, MAX_RESERVATION_TTL, MAX_ITEMS, MAX_SCAN, USAGE_RETENTION,
        USAGE_MAX_RETENTION, AUDIT_RETENTION);
  }

  static final class Ledger {
    static final Setting<Duration> TICK_INTERVAL = optional("tick-interval",
        duration(Duration.ofMillis(10), Duration.ofSeconds(60)), Duration.ofMillis(250),
        "how often the leader proposes a Tick when something is due");
    static final Setting<Long> TICK_MAX_ITEMS = optional("tick-max-items", integer(1, 100_000), 1000L,
        "expiries per Tick");
    static final Setting<Duration> IDEMPOTENCY_RETENTION = optional("idempotency-retention",
        duration(Duration.ofSeconds(1), Duration.ofHours(24)), Duration.ofSeconds(60),
        "how long a request's first answer is kept for retries");
    static final Setting<Long> MAX_LIMITS = optional("max-limits", integer(1, 10_000_000), 100_000L,
        "limits the ledger holds");
    static final Setting<Long> MAX_LEASES = optional("max-leases-per-limit", integer(1, 1_000_000),
        10_000L, "live leases per limit");
    static final Setting<Duration> SECURITY_AUDIT_RETENTION = optional("security-audit-retention",
        duration(Duration.ofMinutes(1), Duration.ofHours(24L * 3650)),
        Duration.ofMillis(StateOptions.DEFAULT_SECURITY_AUDIT_RETENTION_MILLIS),
        "how long a security audit record is kept");
    static final Setting<Long> MAX_NAME_BYTES = optional("max-name-bytes",
        integer(1, StateOptions.MAX_NAME_BYTES_CEILING), 128L, "longest name in UTF-8 bytes");
    static final Section SECTION = section("ledger", Presence.DEFAULTS,
        List.of(TICK_INTERVAL, TICK_MAX_ITEMS, IDEMPOTENCY_RETENTION, MAX_LIMITS, MAX_LEASES,
            SECURITY_AUDIT_RETENTION, MAX_NAME_BYTES),
        List.of(Quota.SECTION));
  }

  static final class Endpoint {
    static final Setting<Long> MAX_FRAME_BYTES = optional("max-frame-bytes", size(1L << 10, 64 * MIB),
        MIB, "largest frame accepted");
    static final Setting<Long> MAX_IN_FLIGHT_PER_CONNECTION = optional("max-in-flight-per-connection",
        integer(1, 65_536), 1024L, "requests of one connection served at once");
    static final Setting<Long> MAX_CONNECTIONS = optional("max-connections", integer(1, 65_536), 1024L,
        "open client connections");
    static final Setting<Duration> DEFAULT_DEADLINE = optional("default-deadline",
        duration(Duration.ofMillis(10), Duration.ofMinutes(10)), Duration.ofSeconds(5),
        "deadline of a request that names none");
    static final Setting<Duration> MAX_DEADLINE = optional("max-deadline",
        duration(Duration.ofMillis(10), Duration.ofHours(1)), Duration.ofSeconds(60),
        "longest deadline a request may ask for");
    static final Setting<Long> IO_THREADS = optional("io-threads", integer(1, 64), 2L,
        "Netty event-loop threads");
    static final Setting<Long> MAX_IN_FLIGHT_PER_TENANT = optional("max-in-flight-per-tenant",
        integer(1, 65_536), 256L, "requests of one tenant in flight on this node");
    static final Setting<Duration> HELLO_TIMEOUT = optional("hello-timeout",
        duration(Duration.ofMillis(100), Duration.ofMinutes(10)), EndpointOptions.DEFAULT_HELLO_TIMEOUT,
        "how long a new connection may take to complete HELLO");
    static final Setting<Duration> FRAME_TIMEOUT = optional("frame-timeout",
        duration(Duration.ofMillis(100), Duration.ofHours(1)), EndpointOptions.DEFAULT_FRAME_TIMEOUT,
        "how long a started frame may take to arrive whole");
    static final Setting<TenantFairness> TENANT_FAIRNESS = optional("tenant-fairness",
        choice(List.of("all", "quota", "none"),
            List.of(TenantFairness.ALL, TenantFairness.QUOTA, TenantFairness.NONE))
            .refusing("\"%s\" is not one of all, quota, none"),
        TenantFairness.ALL, "which requests take a place in their tenant's share");
    static final Section SECTION = section("endpoint", Presence.DEFAULTS, MAX_FRAME_BYTES,
        MAX_IN_FLIGHT_PER_CONNECTION, MAX_CONNECTIONS, DEFAULT_DEADLINE, MAX_DEADLINE, IO_THREADS,
        MAX_IN_FLIGHT_PER_TENANT, HELLO_TIMEOUT, FRAME_TIMEOUT, TENANT_FAIRNESS);
  }

  static final class Shutdown {
    static final Setting<Duration> GRACE = optional("grace",
        duration(Duration.ZERO, Duration.ofMinutes(10)), Duration.ofSeconds(5),
        "how long a graceful shutdown waits for in-flight requests");
    static final Section SECTION = section("shutdown", Presence.DEFAULTS, GRACE);
  }

  /** Absent, the node runs insecure, as every configuration written before TLS existed did. */
  static final class Tls {
    static final Setting<TlsOptions.Mode> MODE = required("mode",
        choice(List.of("secure", "insecure"), List.of(TlsOptions.Mode.ON, TlsOptions.Mode.INSECURE)),
        "TLS on every port, or plaintext");
    /** An invalid or missing mode counts as secure here, so a file with neither is told everything it lacks. */
    static final Requirement WHEN_SECURE = new Requirement("when secure",
        v -> v.get(MODE).orElse(TlsOptions.Mode.ON) == TlsOptions.Mode.ON);
    static final Setting<Path> CA = requiredWhen("ca", certificatePath(), WHEN_SECURE,
        "the CA certificates peers' and clients' certificates must chain to");
    static final Setting<Path> CERT = requiredWhen("cert", certificatePath(), WHEN_SECURE,
        "this node's certificate chain");
    static final Setting<Path> KEY = requiredWhen("key", certificatePath(), WHEN_SECURE,
        "the private key of cert");
    static final Setting<TlsOptions.ClientAuth> CLIENT_AUTH = optional("client-auth",
        choice(List.of("none", "optional", "required"), List.of(TlsOptions.ClientAuth.NONE,
            TlsOptions.ClientAuth.OPTIONAL, TlsOptions.ClientAuth.REQUIRED)),
        TlsOptions.ClientAuth.REQUIRED, "whether the client port requires a client certificate");
    static final Setting<Duration> RELOAD_INTERVAL = optional("reload-interval",
        duration(Duration.ofMillis(100), Duration.ofHours(1)), TlsOptions.RELOAD_INTERVAL_DEFAULT,
        "how often the three files are checked for changes");
    static final Section SECTION = section("tls", Presence.OPTIONAL, MODE, CA, CERT, KEY, CLIENT_AUTH,
        RELOAD_INTERVAL);
  }

  /** Absent, the node runs without authentication and says so loudly at start (docs/SECURITY.md). */
  static final class Security {
    static final Setting<SecurityOptions.Mode> MODE = required("mode",
        choice(List.of("secure", "insecure"),
            List.of(SecurityOptions.Mode.SECURE, SecurityOptions.Mode.INSECURE))
            .refusing("'%s' is neither secure nor insecure"),
        "authenticate and authorize every request, or not");
    static final Setting<List<String>> BOOTSTRAP_ADMINS = optional("bootstrap-admins", stringList(),
        List.of(), "identities that are administrators before any grant exists");
    static final Setting<List<SecurityOptions.BootstrapToken>> BOOTSTRAP_TOKENS = optional(
        "bootstrap-tokens", bootstrapTokens(), List.of(), "administrator tokens by their salted hash");
    // Since open-metrics exists, open-health-endpoints covers /health and /ready only; a file
    // that sets it still parses and keeps those probes as it asked.
    static final Setting<Boolean> OPEN_HEALTH = optional("open-health-endpoints", bool(), true,
        "whether /health and /ready answer without authentication");
    static final Setting<Boolean> OPEN_METRICS = optional("open-metrics", bool(), false,
        "whether /metrics and /status answer without authentication");
    static final Setting<Long> AUTH_FAILURES = optional("auth-failures-per-minute", integer(1, 10_000),
        10L, "failed token authentications per source address and minute");
    static final Section SECTION = section("security", Presence.OPTIONAL, MODE, BOOTSTRAP_ADMINS,
        BOOTSTRAP_TOKENS, OPEN_HEALTH, OPEN_METRICS, AUTH_FAILURES);
  }

  /** The whole document. */
  static final class Root {
    static final Section SECTION = section("", Presence.REQUIRED, List.of(),
        List.of(Node.SECTION, Cluster.SECTION, Raft.SECTION, GroupCommit.SECTION, Ledger.SECTION,
            Endpoint.SECTION, Shutdown.SECTION, Tls.SECTION, Security.SECTION));
  }

  // ---------------------------------------------------------------- the loop

  /**
   * Reads {@code s} as {@code section} into {@code out}: each setting in declared order, then
   * each subsection, then every key the section does not declare is refused.
   */
  static void read(ConfigSection s, Section section, Values out) {
    out.present.add(section);
    for (Setting<?> setting : section.settings()) {
      readSetting(s, setting, out);
    }
    for (Section child : section.sections()) {
      Optional<ConfigSection> c = s.section(child.key(), child.presence() == Presence.REQUIRED);
      if (c.isEmpty() && child.presence() == Presence.DEFAULTS) {
        c = Optional.of(s.emptySection(child.key()));
      }
      c.ifPresent(sub -> read(sub, child, out));
    }
    s.rejectUnknownKeys();
  }

  private static <T> void readSetting(ConfigSection s, Setting<T> setting, Values out) {
    if (!s.has(setting.key())) {
      if (setting.defaultValue().isPresent()) {
        out.values.put(setting, setting.defaultValue().get());
      } else if (setting.required().test().test(out)) {
        s.problem(setting.key(), "is required");
      }
      return;
    }
    setting.type().read(s, setting.key(), out).ifPresent(v -> out.values.put(setting, v));
  }

  /** Every declared setting by its documented key path ({@code cluster.peers[i].id}), in order. */
  static Map<String, Setting<?>> declared() {
    Map<String, Setting<?>> out = new LinkedHashMap<>();
    declare("", Root.SECTION, out);
    return out;
  }

  private static void declare(String prefix, Section section, Map<String, Setting<?>> out) {
    String path = prefix.isEmpty() || section.key().isEmpty() ? prefix + section.key() : prefix + "." + section.key();
    for (Setting<?> setting : section.settings()) {
      String key = path.isEmpty() ? setting.key() : path + "." + setting.key();
      out.put(key, setting);
      if (setting.type() instanceof PeersType peers) {
        declare(key + "[i]", peers.entry(), out);
      }
    }
    for (Section child : section.sections()) {
      declare(path, child, out);
    }
  }

  // ---------------------------------------------------------------- the model

  /**
   * One setting. {@code defaultValue} is used when the key is absent; without one the key is
   * required, always or as {@code required} says.
   */
  record Setting<T>(String key, Type<T> type, Optional<T> defaultValue, Requirement required, String meaning) {}

  /** When a setting without a default must be given; {@code when} is how the doc says it. */
  record Requirement(String when, Predicate<Values> test) {
    static final Requirement ALWAYS = new Requirement("", v -> true);
    /** Of a setting with a default. */
    static final Requirement NEVER = new Requirement("", v -> false);
  }

  enum Presence {
    /** Absent is a problem. */
    REQUIRED,
    /** Absent means every setting at its default. */
    DEFAULTS,
    /** Absent means the feature is off; the loader decides what that is. */
    OPTIONAL
  }

  /** A mapping: its settings, then its nested mappings. The key of the root is empty. */
  record Section(String key, Presence presence, List<Setting<?>> settings, List<Section> sections) {}

  /** The values read so far: valid ones only, so a setting missing here was bad, absent or off. */
  static final class Values {
    private final Map<Setting<?>, Object> values = new IdentityHashMap<>();
    private final Set<Section> present = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Path baseDir;
    private final Optional<Path> dataDirOverride;

    Values(Path baseDir, Optional<Path> dataDirOverride) {
      this.baseDir = baseDir;
      this.dataDirOverride = dataDirOverride;
    }

    /** Relative paths resolve against it: the config file's directory. */
    Path baseDir() {
      return baseDir;
    }

    Optional<Path> dataDirOverride() {
      return dataDirOverride;
    }

    /** Whether the section was in the document (and a mapping). */
    boolean present(Section section) {
      return present.contains(section);
    }

    @SuppressWarnings("unchecked")
    <T> Optional<T> get(Setting<T> setting) {
      return Optional.ofNullable((T) values.get(setting));
    }

    /** The value of a setting that must have one once the document has no problems. */
    <T> T value(Setting<T> setting) {
      return get(setting).orElseThrow(() -> new IllegalStateException(
          setting.key() + " has no value and no problem was recorded"));
    }

    /** The value, or the default of a setting of an absent section. */
    <T> T valueOrDefault(Setting<T> setting) {
      return get(setting).or(setting::defaultValue).orElseThrow(() -> new IllegalStateException(
          setting.key() + " has no value and no default"));
    }

    /** Values of a nested mapping (a list entry) read in the same context. */
    Values child() {
      return new Values(baseDir, dataDirOverride);
    }
  }

  /** How a value that is present is parsed and checked; a problem names the key and the value. */
  interface Type<T> {
    Optional<T> read(ConfigSection s, String key, Values context);

    /** How docs/CONFIGURATION.md names the type. */
    String docName();
  }

  record DurationType(Duration min, Duration max) implements Type<Duration> {
    @Override
    public Optional<Duration> read(ConfigSection s, String key, Values context) {
      return s.duration(key, min, max);
    }

    @Override
    public String docName() {
      return "duration";
    }
  }

  record IntegerType(long min, long max) implements Type<Long> {
    @Override
    public Optional<Long> read(ConfigSection s, String key, Values context) {
      return s.integer(key, min, max);
    }

    @Override
    public String docName() {
      return "integer";
    }
  }

  record SizeType(long min, long max) implements Type<Long> {
    @Override
    public Optional<Long> read(ConfigSection s, String key, Values context) {
      return s.size(key, min, max);
    }

    @Override
    public String docName() {
      return "size";
    }
  }

  record BoolType() implements Type<Boolean> {
    @Override
    public Optional<Boolean> read(ConfigSection s, String key, Values context) {
      return s.bool(key);
    }

    @Override
    public String docName() {
      return "bool";
    }
  }

  /** One of a few spellings; {@code refusal} formats the problem with the bad spelling. */
  record ChoiceType<E>(Map<String, E> choices, String refusal) implements Type<E> {
    ChoiceType<E> refusing(String format) {
      return new ChoiceType<>(choices, format);
    }

    @Override
    public Optional<E> read(ConfigSection s, String key, Values context) {
      return s.string(key).flatMap(text -> {
        E value = choices.get(text);
        if (value == null) {
          s.problem(key, String.format(Locale.ROOT, refusal, text));
        }
        return Optional.ofNullable(value);
      });
    }

    @Override
    public String docName() {
      return String.join(", ", choices.keySet());
    }
  }

  /** Checks a string that is present and not blank; records its own problem when it refuses it. */
  interface TextCheck<T> {
    Optional<T> check(ConfigSection s, String key, String text, Values context);
  }

  /** A string, then a check of what it says (a node id, an address, a path). */
  record TextType<T>(String docName, TextCheck<T> check) implements Type<T> {
    @Override
    public Optional<T> read(ConfigSection s, String key, Values context) {
      return s.string(key).flatMap(text -> check.check(s, key, text, context));
    }
  }

  /** A list of non-empty strings, then a check of the list. */
  record ListType<T>(String docName, ListCheck<T> check) implements Type<List<T>> {
    @Override
    public Optional<List<T>> read(ConfigSection s, String key, Values context) {
      return s.stringList(key).map(list -> check.check(s, key, list));
    }
  }

  interface ListCheck<T> {
    List<T> check(ConfigSection s, String key, List<String> lines);
  }

  /**
   * The members: 1 to {@code max} mappings, each read as {@link #entry()}, with unique ids and
   * every address unique across all peers and roles. Empty unless all of that holds.
   */
  record PeersType(int max, Setting<String> id, Setting<String> raft, Setting<String> client,
      Setting<String> admin) implements Type<List<Peer>> {

    Section entry() {
      return section("", Presence.REQUIRED, id, raft, client, admin);
    }

    @Override
    public String docName() {
      return "list of peers";
    }

    @Override
    public Optional<List<Peer>> read(ConfigSection cluster, String key, Values context) {
      Optional<List<ConfigSection>> list = cluster.sectionList(key);
      if (list.isEmpty()) {
        return Optional.empty();
      }
      List<ConfigSection> entries = list.get();
      if (entries.isEmpty()) {
        cluster.problem(key, "must list at least one peer");
        return Optional.empty();
      }
      if (entries.size() > max) {
        cluster.problem(key, entries.size() + " peers is above the maximum " + max);
      }
      boolean valid = entries.size() <= max;
      Section entry = entry();
      Map<String, String> idToPath = new HashMap<>();
      Map<String, String> addressToPath = new HashMap<>();
      List<Peer> out = new ArrayList<>();
      for (ConfigSection p : entries) {
        Values v = context.child();
        ConfigSchema.read(p, entry, v);
        Optional<String> peerId = v.get(id);
        if (peerId.isPresent()) {
          String earlier = idToPath.putIfAbsent(peerId.get(), p.pathOf(id.key()));
          if (earlier != null) {
            p.problem(id.key(), "'" + peerId.get() + "' duplicates " + earlier);
            valid = false;
          }
        }
        for (Setting<String> role : List.of(raft, client, admin)) {
          Optional<String> address = v.get(role);
          if (address.isPresent()) {
            String earlier = addressToPath.putIfAbsent(address.get().toLowerCase(Locale.ROOT), p.pathOf(role.key()));
            if (earlier != null) {
              p.problem(role.key(), address.get() + " duplicates " + earlier);
              valid = false;
            }
          }
        }
        if (peerId.isEmpty() || v.get(raft).isEmpty() || v.get(client).isEmpty() || v.get(admin).isEmpty()) {
          valid = false;
        } else {
          out.add(new Peer(peerId.get(), v.value(raft), v.value(client), v.value(admin)));
        }
      }
      return valid ? Optional.of(out) : Optional.empty();
    }
  }

  // ---------------------------------------------------------------- declaring

  static <T> Setting<T> optional(String key, Type<T> type, T defaultValue, String meaning) {
    return new Setting<>(key, type, Optional.of(defaultValue), Requirement.NEVER, meaning);
  }

  static <T> Setting<T> required(String key, Type<T> type, String meaning) {
    return new Setting<>(key, type, Optional.empty(), Requirement.ALWAYS, meaning);
  }

  static <T> Setting<T> requiredWhen(String key, Type<T> type, Requirement when, String meaning) {
    return new Setting<>(key, type, Optional.empty(), when, meaning);
  }

  static Section section(String key, Presence presence, Setting<?>... settings) {
    return section(key, presence, List.of(settings), List.of());
  }

  static Section section(String key, Presence presence, List<Setting<?>> settings, List<Section> sections) {
    return new Section(key, presence, settings, sections);
  }

  static DurationType duration(Duration min, Duration max) {
    return new DurationType(min, max);
  }

  static IntegerType integer(long min, long max) {
    return new IntegerType(min, max);
  }

  static SizeType size(long min, long max) {
    return new SizeType(min, max);
  }

  static BoolType bool() {
    return new BoolType();
  }

  /** Spellings and their values, in order; refused as "'x' is not one of a, b" unless {@link ChoiceType#refusing}. */
  static <E> ChoiceType<E> choice(List<String> names, List<E> values) {
    Map<String, E> choices = new LinkedHashMap<>();
    for (int i = 0; i < names.size(); i++) {
      choices.put(names.get(i), values.get(i));
    }
    return new ChoiceType<>(Collections.unmodifiableMap(choices),
        "'%s' is not one of " + String.join(", ", names));
  }

  private static final Pattern NODE_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
  private static final Pattern CANONICAL_UUID =
      Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

  static TextType<String> nodeId() {
    return new TextType<>("string", (s, key, id, context) -> {
      if (!NODE_ID.matcher(id).matches()) {
        s.problem(key, "'" + id + "' is not a valid node id (1-64 of A-Z a-z 0-9 _ . -, starting with a letter or digit)");
        return Optional.empty();
      }
      return Optional.of(id);
    });
  }

  static TextType<String> uuid() {
    return new TextType<>("UUID", (s, key, text, context) -> {
      if (!validUuid(text)) {
        s.problem(key, "'" + text + "' is not a UUID (lower-case, e.g. " + ConfigLoader.DEFAULT_GROUP_ID + ")");
        return Optional.empty();
      }
      return Optional.of(text);
    });
  }

  /** A dialable host:port ({@link ConfigLoader#addressProblem}). */
  static TextType<String> address() {
    return new TextType<>("host:port", (s, key, address, context) -> {
      Optional<String> why = ConfigLoader.addressProblem(address);
      why.ifPresent(w -> s.problem(key, "'" + address + "' " + w));
      return why.isEmpty() ? Optional.of(address) : Optional.empty();
    });
  }

  /**
   * A path, relative ones against the config file's directory. With {@code --data-dir} the
   * file's value is not used, so it is only read as a string: a file that starts a node with
   * the flag must not fail on a path it does not use.
   */
  static TextType<Path> dataDirectory() {
    return new TextType<>("path", (s, key, text, context) -> context.dataDirOverride().isPresent()
        ? Optional.empty()
        : resolve(s, key, text, context.baseDir()));
  }

  /**
   * A certificate or key path: {@code ${NAME}} and {@code ${NAME:-default}} take an environment
   * variable, a leading {@code ~/} is the user's home directory, and a relative path resolves
   * against the config file's directory. The shipped examples use
   * {@code ${RATION_CERTS_DIR:-~/.ration/certs}}, the directory the CLI reads too.
   */
  static TextType<Path> certificatePath() {
    return new TextType<>("path", (s, key, text, context) ->
        ConfigLoader.expand(text, System::getenv).map(Optional::of).orElseGet(() -> {
          s.problem(key, "'" + text + "' names an environment variable that is not set and has no default (${NAME:-default})");
          return Optional.empty();
        }).flatMap(expanded -> {
          String home = System.getProperty("user.home");
          String withHome = expanded.equals("~") ? home
              : expanded.startsWith("~/") ? home + expanded.substring(1) : expanded;
          return resolve(s, key, withHome, context.baseDir());
        }));
  }

  static ListType<String> stringList() {
    return new ListType<>("list of strings", (s, key, lines) -> lines);
  }

  /** {@code <identity>@rtnh...} lines as printed by {@code ration token bootstrap}. */
  static ListType<SecurityOptions.BootstrapToken> bootstrapTokens() {
    return new ListType<>("list of strings", (s, key, lines) -> {
      List<SecurityOptions.BootstrapToken> parsed = new ArrayList<>();
      for (String line : lines) {
        int at = line.lastIndexOf('@');
        if (at < 1) {
          s.problem(key, "'" + line + "' is not <identity>@rtnh.... (as printed by ration token bootstrap)");
          continue;
        }
        try {
          Object[] p = Tokens.parseHashLine(line.substring(at + 1));
          parsed.add(new SecurityOptions.BootstrapToken(line.substring(0, at), (Long) p[0],
              (byte[]) p[1], (byte[]) p[2]));
        } catch (IllegalArgumentException e) {
          s.problem(key, e.getMessage());
        }
      }
      return parsed;
    });
  }

  private static Optional<Path> resolve(ConfigSection s, String key, String text, Path baseDir) {
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
}
