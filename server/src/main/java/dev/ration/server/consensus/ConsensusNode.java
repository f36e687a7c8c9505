package dev.ration.server.consensus;

import dev.ration.server.consensus.CoordinatorException.Reason;
import dev.ration.statemachine.CoordinatorState;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.query.EntryView;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.netty.NettyConfigKeys;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.protocol.TransferLeadershipRequest;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Ration node's consensus: a Ratis server (gRPC between peers) over {@link RationStateMachine}
 * (RocksDB), the leader's {@link LogClock}, group commit ({@link Proposer}) and the ticker.
 *
 * <p>Storage: the Raft log under {@code <dataDir>/raft}, the state under {@code <dataDir>/state},
 * snapshots (RocksDB checkpoints) in the Raft storage's state-machine directory. A fresh raft
 * directory is formatted; an existing one is always recovered (RATIS-1995: never re-format).
 *
 * <p>Thread-safe. {@link #submit} and {@link #query} never block the caller. Leadership events
 * arrive on Ratis threads; the ticker runs on its own thread; proposals on the proposer's.
 *
 * <p>Lifecycle: {@link #start} → serve → {@link #transferLeadership} (best effort, graceful
 * shutdown) → {@link #close} (stops the ticker and proposer, failing unproposed commands, then
 * Ratis, then RocksDB).
 */
public final class ConsensusNode implements Coordinator, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ConsensusNode.class);

  private final ConsensusOptions options;
  private final RaftGroupId groupId;
  private final RaftPeerId selfId;
  private final LogClock clock;
  private final PendingReads reads = new PendingReads();
  private final RationStateMachine stateMachine;
  private final RaftServer server;
  private final ScheduledExecutorService scheduler;
  /** Wakes and times out TTL watches: never the applying thread, never the ticker. */
  private final ScheduledExecutorService watchTimers;
  private final TtlChangeLog ttlChanges;
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong(1L << 40);
  private volatile Proposer proposer;
  /** Written by the ticker thread, read by metrics. */
  private volatile long expiryOverdueMillis;
  private volatile RaftServer.Division division;
  private final Membership membership = new Membership(this);
  private final LongSupplier nanoClock;
  private final GrpcTlsConfig raftTls;
  /** Ratis's transport: gRPC, or Netty when measured against it in plaintext ({@link #rpcType}). */
  private final String rpcType;
  private final AtomicLong forwardsSent = new AtomicLong();
  private final AtomicLong forwardsReceived = new AtomicLong();

  private ConsensusNode(
      ConsensusOptions options, boolean join, LongSupplier nanoClock, Terminator terminator,
      GrpcTlsConfig raftTls)
      throws IOException {
    this.options = options;
    this.nanoClock = nanoClock;
    this.raftTls = raftTls;
    this.groupId = RaftGroupId.valueOf(UUID.fromString(options.groupId()));
    this.selfId = RaftPeerId.valueOf(options.self().id());
    this.clock = new LogClock(nanoClock);
    Path dataDir = options.dataDir().toAbsolutePath();
    Path raftDir = dataDir.resolve("raft");
    java.util.concurrent.ScheduledThreadPoolExecutor timers =
        new java.util.concurrent.ScheduledThreadPoolExecutor(2, r -> {
          Thread t = new Thread(r, "ration-ttl-watch-" + options.nodeId());
          t.setDaemon(true);
          return t;
        });
    // A poll woken by a change cancels its timer: without this, each would stay queued for
    // the poll's whole wait.
    timers.setRemoveOnCancelPolicy(true);
    this.watchTimers = timers;
    this.ttlChanges = new TtlChangeLog(TTL_CHANGES_HELD, TTL_CHANGE_BYTES_HELD, watchTimers);
    this.stateMachine = new RationStateMachine(dataDir.resolve("state"), options.stateOptions(),
        terminator, reads, ttlChanges, new Leadership());
    List<RaftPeer> peers = options.peers().stream().map(ConsensusNode::raftPeer).toList();
    boolean fresh = isAbsentOrEmpty(raftDir);
    RaftStorage.StartupOption startup = fresh
        ? RaftStorage.StartupOption.FORMAT
        : RaftStorage.StartupOption.RECOVER;
    // A node started with --join gets an empty group, fresh storage or not. Fresh, it is
    // nobody's voter and never campaigns; the leader's first append (or snapshot) brings the
    // cluster's configuration. On RECOVER Ratis restores the configuration the node stored (the
    // configuration entries of its log, and the one it saved when it applied or installed a
    // snapshot past them), so a node that was added comes back a member, and one stopped before
    // `cluster add` reached it stays a newcomer: given its file's peers (which list itself) it
    // would start as a voter of a configuration no one else has and campaign. Without --join,
    // the file's peers form a new cluster on FORMAT and the stored configuration replaces them
    // on RECOVER.
    if (join) {
      LOG.info("{}: starting ({}) with --join and raft storage {}: {}", selfId, startup, raftDir,
          fresh
              ? "a newcomer with no configuration, waiting for `ration cluster add`"
              : "the configuration stored there decides its membership; without one it waits"
                  + " for `ration cluster add`");
    } else {
      LOG.info("{}: starting ({}) with raft storage {} and peers {}", selfId, startup, raftDir,
          peers);
    }
    RaftProperties properties = properties(options, raftDir);
    this.rpcType = rpcType(properties, raftTls);
    this.server = RaftServer.newBuilder()
        .setServerId(selfId)
        .setGroup(join ? RaftGroup.valueOf(groupId) : RaftGroup.valueOf(groupId, peers))
        .setStateMachine(stateMachine)
        .setProperties(properties)
        .setParameters(parameters(raftTls))
        .setOption(startup)
        .build();
    this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "ration-ticker-" + options.nodeId());
      t.setDaemon(true);
      return t;
    });
    this.proposer = new Proposer(options, server, groupId, clock, nanoClock, this::isLeader,
        this::leaderClientAddress);
  }

  /** Start a node with the real monotonic clock and fail-stop on apply errors. */
  public static ConsensusNode start(ConsensusOptions options) throws IOException {
    return start(options, System::nanoTime, Terminator.halting());
  }

  /** Start for real; {@code join}: see {@link #start(ConsensusOptions, boolean, LongSupplier, Terminator)}. */
  public static ConsensusNode start(ConsensusOptions options, boolean join) throws IOException {
    return start(options, join, System::nanoTime, Terminator.halting());
  }

  /** Start with an injected monotonic clock and terminator (tests). */
  public static ConsensusNode start(
      ConsensusOptions options, LongSupplier nanoClock, Terminator terminator) throws IOException {
    return start(options, false, nanoClock, terminator, null);
  }

  /**
   * As above; {@code join} starts a node as a newcomer to a running cluster (docs/OPERATIONS.md,
   * "Membership"): its file's peers do not make it a member; it waits to be added by
   * {@code cluster add}, and on a restart is a member only if the configuration it stored from
   * the cluster says so.
   */
  public static ConsensusNode start(ConsensusOptions options, boolean join, LongSupplier nanoClock,
      Terminator terminator) throws IOException {
    return start(options, join, nanoClock, terminator, null);
  }

  /**
   * Start with the real clock, fail-stop on apply errors, and Raft traffic under {@code raftTls}
   * (null: plaintext).
   */
  public static ConsensusNode start(ConsensusOptions options, GrpcTlsConfig raftTls) throws IOException {
    return start(options, false, System::nanoTime, Terminator.halting(), raftTls);
  }

  /** Start for real, joining as {@link #start(ConsensusOptions, boolean, LongSupplier, Terminator)} says, under {@code raftTls}. */
  public static ConsensusNode start(ConsensusOptions options, boolean join, GrpcTlsConfig raftTls)
      throws IOException {
    return start(options, join, System::nanoTime, Terminator.halting(), raftTls);
  }

  /** Start with an injected clock and terminator and Raft traffic under {@code raftTls} (null: plaintext). */
  public static ConsensusNode start(
      ConsensusOptions options, LongSupplier nanoClock, Terminator terminator, GrpcTlsConfig raftTls)
      throws IOException {
    return start(options, false, nanoClock, terminator, raftTls);
  }

  /** Every way of starting comes here. */
  public static ConsensusNode start(ConsensusOptions options, boolean join, LongSupplier nanoClock,
      Terminator terminator, GrpcTlsConfig raftTls) throws IOException {
    validate(options);
    ConsensusNode node = new ConsensusNode(options, join, nanoClock, terminator, raftTls);
    try {
      node.server.start();
      node.division = node.server.getDivision(node.groupId);
      String mismatch = node.configMismatch();
      if (!mismatch.isEmpty()) {
        LOG.warn("{}: cluster.peers in the configuration file disagrees with the replicated "
            + "configuration, which wins: {}", node.selfId, mismatch);
      }
      node.proposer.start();
      long tickMillis = Math.max(1, options.tickInterval().toMillis());
      node.scheduler.scheduleWithFixedDelay(
          node::tick, tickMillis, tickMillis, TimeUnit.MILLISECONDS);
      long staleCheckMillis = Math.max(100, options.electionTimeoutMax().toMillis());
      node.scheduler.scheduleWithFixedDelay(node.membership::handOffStaleStreams,
          staleCheckMillis, staleCheckMillis, TimeUnit.MILLISECONDS);
      return node;
    } catch (IOException | RuntimeException e) {
      node.close();
      throw e;
    }
  }

  private static void validate(ConsensusOptions o) {
    o.self();
    UUID.fromString(o.groupId());
    if (o.electionTimeoutMin().isNegative() || o.electionTimeoutMin().isZero()
        || o.electionTimeoutMax().compareTo(o.electionTimeoutMin()) <= 0) {
      throw new IllegalArgumentException("election timeout min " + o.electionTimeoutMin()
          + " must be > 0 and < max " + o.electionTimeoutMax());
    }
    if (o.queueCapacity() < 1 || o.batchMaxCommands() < 1 || o.batchMaxBytes() < 1
        || o.maxEntriesInFlight() < 1 || o.tickMaxItems() < 1
        || o.snapshotThresholdEntries() < 1 || o.purgePreservedEntries() < 0
        || o.segmentSizeBytes() < 1024) {
      throw new IllegalArgumentException("bad consensus bounds: " + o);
    }
  }

  private static boolean isAbsentOrEmpty(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return true;
    }
    try (Stream<Path> children = Files.list(dir)) {
      return children.findAny().isEmpty();
    }
  }

  /**
   * A configured peer as Ratis stores it in the replicated configuration. The client and admin
   * addresses ride along in Ratis's own fields so every node learns a new member's addresses
   * from the log; Ration never points a Ratis client at them.
   */
  static RaftPeer raftPeer(Peer p) {
    return RaftPeer.newBuilder().setId(p.id()).setAddress(p.raftAddress())
        .setClientAddress(p.clientAddress()).setAdminAddress(p.adminAddress()).build();
  }

  /**
   * One TLS configuration for all of Ratis's gRPC traffic: the server port peers append and
   * vote on, and the client and admin stubs this node dials them with.
   */
  static Parameters parameters(GrpcTlsConfig raftTls) {
    Parameters p = new Parameters();
    if (raftTls != null) {
      GrpcConfigKeys.TLS.setConf(p, raftTls);
    }
    return p;
  }

  /** Ratis settings (docs/CONFIGURATION.md, "raft"); each node gets its own copy. */
  static RaftProperties properties(ConsensusOptions o, Path raftDir) {
    RaftProperties p = new RaftProperties();
    RaftServerConfigKeys.setStorageDir(p, List.of(raftDir.toFile()));
    RaftServerConfigKeys.setStorageFreeSpaceMin(p, SizeInBytes.valueOf("16MB"));
    HostPort raft = HostPort.parse(o.self().raftAddress());
    GrpcConfigKeys.Server.setHost(p, raft.host());
    GrpcConfigKeys.Server.setPort(p, raft.port());
    // Used only when raft.rpc.type=NETTY is set (rpcType): the same port either way.
    NettyConfigKeys.Server.setHost(p, raft.host());
    NettyConfigKeys.Server.setPort(p, raft.port());

    TimeDuration min = millis(o.electionTimeoutMin());
    TimeDuration max = millis(o.electionTimeoutMax());
    RaftServerConfigKeys.Rpc.setTimeoutMin(p, min);
    RaftServerConfigKeys.Rpc.setTimeoutMax(p, max);
    // RATIS-1638: a cluster starting together elects quickly; later elections use min/max.
    long firstMin = Math.min(200, o.electionTimeoutMin().toMillis());
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(p, TimeDuration.valueOf(firstMin, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(p, TimeDuration.valueOf(firstMin + 300, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setRequestTimeout(p, millis(o.requestTimeout()));

    RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
    RaftServerConfigKeys.Read.ReadIndex.setType(p, RaftServerConfigKeys.Read.ReadIndex.Type.COMMIT_INDEX);
    RaftServerConfigKeys.Read.setLeaderLeaseEnabled(p, false);
    RaftServerConfigKeys.Read.setLeaderHeartbeatCheckEnabled(p, true);
    RaftServerConfigKeys.Read.setTimeout(p, millis(o.requestTimeout()));

    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, o.snapshotThresholdEntries());
    RaftServerConfigKeys.Snapshot.setCreationGap(p, Math.min(1024, o.snapshotThresholdEntries()));
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
    // Ratis's commit-index metadata entries doubled the entries in the log (one per data entry
    // under load) for no benefit here: Ration keeps its applied index in RocksDB, and a restarted
    // follower learns the commit index from the leader's first heartbeat.
    RaftServerConfigKeys.Log.setLogMetadataEnabled(p, false);
    RaftServerConfigKeys.Log.setPurgeGap(p, (int) Math.max(1, Math.min(1024, o.snapshotThresholdEntries())));
    RaftServerConfigKeys.Log.setPurgePreservationLogNum(p, o.purgePreservedEntries());
    RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(o.segmentSizeBytes()));
    RaftServerConfigKeys.Log.Appender.setInstallSnapshotEnabled(p, true);
    // A newcomer is admitted to the configuration (and told it is a member, which starts its
    // election timer) once this close to the commit index: the same notion of "caught up" the
    // membership checks use, and close enough that the entries it receives next carry the
    // configuration that lists it (Membership#addVoter).
    RaftServerConfigKeys.setStagingCatchupGap(p, (int) Membership.CAUGHT_UP_GAP);
    // The write path, measured A/B on three fresh clusters each (docs/benchmarks.md, "Ratis
    // settings A/B"): a follower appends on the gRPC callback thread instead of handing each
    // entry to another Ratis thread, and the leader's appender sends the next entry without
    // waiting a millisecond after its previous RPC. Together: one caller's acquire p50 2.87 ->
    // 1.96 ms, 16 callers +26 % acquires/s and -22 % node CPU per acquire. Neither touches what
    // is durable or when an entry counts as committed.
    RaftServerConfigKeys.Log.setAppendEntriesComposeEnabled(p, false);
    RaftServerConfigKeys.Log.Appender.setWaitTimeMin(p, TimeDuration.ZERO);

    // Heap budget (the nodes run in -Xmx512m). Ratis keeps every reply in its retry cache for
    // the expiry time and caches whole log segments; under load (hundreds of group-commit
    // entries a second, each reply carrying every command's result) a 5-minute cache and six
    // 32 MiB segments filled the old generation and full GCs stalled the node for 300 ms at a
    // time (docs/benchmarks.md). Ration never retries a Ratis request: the proposer submits each
    // entry once with a fresh call id, and retries are the client's, deduplicated by the
    // ledger's own idempotency records. So the retry cache only has to outlive one request.
    RaftServerConfigKeys.RetryCache.setExpiryTime(p, millis(retryCacheExpiry(o)));
    RaftServerConfigKeys.Log.setSegmentCacheNumMax(p, 2);
    RaftServerConfigKeys.Log.setSegmentCacheSizeMax(p, SizeInBytes.valueOf(2 * o.segmentSizeBytes()));
    overrideFromSystemProperties(p, System.getProperties());
    return p;
  }

  /** The prefix of JVM system properties passed to Ratis as they are (docs/CONFIGURATION.md). */
  static final String RATIS_OVERRIDE_PREFIX = "ration.ratis.";

  /**
   * Applies {@code -Dration.ratis.KEY=VALUE} as the Ratis property KEY, over the settings above:
   * for measuring a Ratis setting A/B on the same build (docs/benchmarks.md), not a supported
   * configuration. Only {@code raft.*} keys; anything else is refused, so a typo in the prefix
   * does not pass unnoticed. Each override is logged at start.
   */
  static void overrideFromSystemProperties(RaftProperties p, java.util.Properties system) {
    for (String name : new java.util.TreeSet<>(system.stringPropertyNames())) {
      if (!name.startsWith(RATIS_OVERRIDE_PREFIX)) {
        continue;
      }
      String key = name.substring(RATIS_OVERRIDE_PREFIX.length());
      if (!key.startsWith("raft.")) {
        throw new IllegalArgumentException("-D" + name + ": a Ratis override names a raft.* key, e.g. "
            + "-D" + RATIS_OVERRIDE_PREFIX + "raft.server.log.appender.wait-time.min=0ms");
      }
      String value = system.getProperty(name);
      LOG.warn("event=ratis_property_override key={} value=\"{}\" was=\"{}\"", key, value, p.get(key));
      p.set(key, value);
    }
  }

  /**
   * The transport {@code p} names. Ratis's Netty transport can be selected with the override
   * {@code raft.rpc.type=NETTY} to measure it against gRPC (docs/benchmarks.md), in plaintext
   * only: TLS here is configured on gRPC, and a Netty transport under a TLS configuration would
   * carry Raft traffic unencrypted and unauthenticated, so it is refused.
   */
  static String rpcType(RaftProperties p, GrpcTlsConfig raftTls) {
    String type = RaftConfigKeys.Rpc.type(p, s -> { }).name();
    if (raftTls != null && !type.equalsIgnoreCase("GRPC")) {
      throw new IllegalArgumentException("raft.rpc.type " + type + " with TLS configured: only the "
          + "gRPC transport carries Raft traffic under TLS; the Netty transport is for plaintext "
          + "measurements only");
    }
    return type;
  }

  /** Twice the Raft request timeout, at least 10 s: longer than any one proposal can wait. */
  static Duration retryCacheExpiry(ConsensusOptions o) {
    Duration twice = o.requestTimeout().multipliedBy(2);
    return twice.compareTo(Duration.ofSeconds(10)) > 0 ? twice : Duration.ofSeconds(10);
  }

  private static TimeDuration millis(Duration d) {
    return TimeDuration.valueOf(d.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** host:port of a configured address. */
  record HostPort(String host, int port) {
    static HostPort parse(String address) {
      int colon = address.lastIndexOf(':');
      if (colon <= 0 || colon == address.length() - 1) {
        throw new IllegalArgumentException("address '" + address + "' is not host:port");
      }
      return new HostPort(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
    }
  }

  // ---------------------------------------------------------------- Coordinator

  /**
   * Proposed here when this node leads; on a follower that knows the leader, forwarded to it
   * ({@link Forwarding}) with the client's request key, so a client that reaches any member is
   * served (a client cut off from the leader, say) and a command that arrives twice applies once.
   */
  @Override
  public CompletableFuture<Result> submit(RequestKey key, Command command, long deadlineNanos) {
    RaftServer.Division d = division;
    if (d != null && !isLeader()) {
      RaftPeerId leader = removed(d) ? null : leaderOf(d);
      if (leader != null && !leader.equals(selfId)) {
        return forward(d, leader, key, command, deadlineNanos);
      }
    }
    return submitHere(key, command, deadlineNanos);
  }

  private CompletableFuture<Result> submitHere(RequestKey key, Command command, long deadlineNanos) {
    RaftServer.Division d = division;
    if (d != null && removed(d)) {
      return CompletableFuture.failedFuture(removedError());
    }
    return proposer.submit(key, command, deadlineNanos);
  }

  /**
   * Hands the command to {@code leader} through Ratis's client service on the Raft port. A
   * refusal before the leader took it (it no longer leads, or is not ready) is definite, as this
   * node's own NOT_LEADER would be; once sent, anything but the leader's answer is
   * indeterminate: the leader may have proposed it.
   */
  private CompletableFuture<Result> forward(RaftServer.Division d, RaftPeerId leader,
      RequestKey key, Command command, long deadlineNanos) {
    long timeoutMillis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - nanoClock.getAsLong());
    if (timeoutMillis <= 0) {
      return CompletableFuture.failedFuture(new CoordinatorException(Reason.DEADLINE_EXCEEDED,
          "deadline passed before the command was forwarded to the leader", "", 0, false));
    }
    RaftClient client;
    try {
      client = forwardingClient(d, leader);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(new CoordinatorException(Reason.NOT_LEADER,
          "node " + options.nodeId() + " is not the leader and cannot reach it: " + e,
          leaderClientAddress(), 0, false));
    }
    forwardsSent.incrementAndGet();
    CompletableFuture<Result> result = new CompletableFuture<>();
    client.async().sendReadOnlyNonLinearizable(Forwarding.request(key, command, timeoutMillis))
        .whenComplete((reply, error) -> {
          try {
            if (error != null) {
              Throwable cause = error instanceof CompletionException && error.getCause() != null
                  ? error.getCause() : error;
              // A refused connection sent nothing: as definite as this node's own NOT_LEADER
              // (the leader it knows is gone; the client waits out the election).
              result.completeExceptionally(refusedConnection(cause)
                  ? new CoordinatorException(Reason.NOT_LEADER, "node " + options.nodeId()
                      + " is not the leader and leader " + leader + " refused the connection: "
                      + cause.getMessage(), leaderClientAddress(), 0, false)
                  : new CoordinatorException(Reason.UNAVAILABLE,
                      "forwarded to leader " + leader + ", no answer: " + cause,
                      leaderClientAddress(), 50, true));
            } else if (reply.isSuccess()) {
              result.complete(Forwarding.decodeAnswer(reply.getMessage()));
            } else if (reply.getNotLeaderException() != null
                || reply.getLeaderNotReadyException() != null) {
              result.completeExceptionally(new CoordinatorException(Reason.NOT_LEADER,
                  "node " + options.nodeId() + " is not the leader, and " + leader
                      + " no longer leads: " + reply.getException().getMessage(),
                  leaderClientAddress(), 0, false));
            } else {
              result.completeExceptionally(new CoordinatorException(Reason.UNAVAILABLE,
                  "forwarded to leader " + leader + ": " + reply.getException(),
                  leaderClientAddress(), 50, true));
            }
          } catch (CoordinatorException e) {
            // The leader's own refusal. A removed leader's "do not ask again" is about that node,
            // not this member: the client waits out the election here as usual.
            result.completeExceptionally(e.reason() == Reason.NOT_LEADER && e.retryAfterMillis() > 0
                ? new CoordinatorException(Reason.NOT_LEADER, e.getMessage(),
                    leaderClientAddress(), 0, e.proposed())
                : e);
          } catch (RuntimeException e) {
            result.completeExceptionally(e);
          }
        });
    return result;
  }

  /**
   * The Ratis client this node forwards with: to the configuration's voters by their Raft
   * addresses (their client addresses are Ration's own endpoint, not Ratis's), under this node's
   * Raft TLS. One per (configuration, leader); the previous one is closed.
   */
  private RaftClient forwardingClient(RaftServer.Division d, RaftPeerId leader) {
    RaftConfiguration conf = d.getRaftConf();
    Forwarder f = forwarder;
    if (f != null && f.conf == conf && f.leader.equals(leader)) {
      return f.client;
    }
    synchronized (this) {
      f = forwarder;
      if (f != null && f.conf == conf && f.leader.equals(leader)) {
        return f.client;
      }
      List<RaftPeer> voters = conf.getCurrentPeers(RaftPeerRole.FOLLOWER).stream()
          .map(p -> RaftPeer.newBuilder().setId(p.getId()).setAddress(p.getAddress()).build())
          .toList();
      RaftProperties props = new RaftProperties();
      RaftConfigKeys.Rpc.setType(props, SupportedRpcType.valueOfIgnoreCase(rpcType));
      RaftClientConfigKeys.Rpc.setRequestTimeout(props,
          TimeDuration.valueOf(options.requestTimeout().toMillis(), TimeUnit.MILLISECONDS));
      RaftClient client = RaftClient.newBuilder()
          .setClientId(ClientId.randomId())
          .setRaftGroup(RaftGroup.valueOf(groupId, voters))
          .setLeaderId(leader)
          .setProperties(props)
          .setParameters(parameters(raftTls))
          .setRetryPolicy(RetryPolicies.noRetry())
          .build();
      forwarder = new Forwarder(conf, leader, client);
      if (f != null) {
        closeQuietly(f.client);
      }
      return client;
    }
  }

  private static boolean refusedConnection(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof java.net.ConnectException) {
        return true;
      }
    }
    return false;
  }

  private record Forwarder(RaftConfiguration conf, RaftPeerId leader, RaftClient client) {}

  private volatile Forwarder forwarder;

  private static void closeQuietly(RaftClient client) {
    try {
      client.close();
    } catch (IOException | RuntimeException e) {
      LOG.debug("closing a forwarding client: {}", e.toString());
    }
  }

  /** Commands this node forwarded to the leader, and commands followers forwarded to it. */
  public long forwardsSent() {
    return forwardsSent.get();
  }

  public long forwardsReceived() {
    return forwardsReceived.get();
  }

  @Override
  public CompletableFuture<QueryResult> query(Query query, boolean stale, long deadlineNanos) {
    RaftServer.Division d = division;
    if (d != null && removed(d)) {
      // Even a stale read: the state stopped at the removal (Ratis closes it with the division).
      return CompletableFuture.failedFuture(removedError());
    }
    if (stale) {
      try {
        return CompletableFuture.completedFuture(stateMachine.queryLocal(query));
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
    if (!isLeader()) {
      return CompletableFuture.failedFuture(new CoordinatorException(Reason.NOT_LEADER,
          "node " + options.nodeId() + " is not the leader", leaderClientAddress(), 0, false));
    }
    long readNowMillis;
    try {
      readNowMillis = clock.running() ? clock.now() : stateMachine.withState(CoordinatorState::nowMillis);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    long id = reads.register(query, readNowMillis);
    CompletableFuture<QueryResult> result = new CompletableFuture<>();
    long timeoutMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
    RaftClientRequest request = RaftClientRequest.newBuilder()
        .setClientId(clientId)
        .setServerId(selfId)
        .setGroupId(groupId)
        .setCallId(callIds.incrementAndGet())
        .setMessage(PendingReads.message(id))
        .setType(RaftClientRequest.readRequestType())
        .setTimeoutMs(Math.min(timeoutMillis, options.requestTimeout().toMillis()))
        .build();
    try {
      server.submitClientRequestAsync(request).whenComplete((reply, error) ->
          completeRead(id, result, reply, error));
    } catch (IOException e) {
      reads.remove(id);
      result.completeExceptionally(new CoordinatorException(Reason.UNAVAILABLE,
          "read submit failed: " + e, leaderClientAddress(), 0, false));
    }
    scheduler.schedule(() -> {
      if (result.completeExceptionally(new CoordinatorException(Reason.DEADLINE_EXCEEDED,
          "read deadline passed", "", 0, false))) {
        reads.remove(id);
      }
    }, timeoutMillis, TimeUnit.MILLISECONDS);
    return result;
  }

  /** TTL changes each node holds for watches to resume from (see {@link TtlChangeLog}). */
  static final int TTL_CHANGES_HELD = 100_000;
  /** ... and their bytes, values included. */
  static final long TTL_CHANGE_BYTES_HELD = 32L << 20;
  /** Changes one watch answer carries at most (whole entries: one entry's may exceed it). */
  static final int TTL_WATCH_CHANGES_PER_ANSWER = 1000;
  /** What a poll leaves of its deadline for the ReadIndex and the answer after its wait. */
  static final long TTL_WATCH_ANSWER_RESERVE_MILLIS = 1000;

  @Override
  public CompletableFuture<TtlWatchAnswer> watchTtl(String namespace, long fromIndex,
      long waitMillis, List<String> keys, boolean confirm, long deadlineNanos) {
    RaftServer.Division d = division;
    if (d != null && removed(d)) {
      return CompletableFuture.failedFuture(removedError());
    }
    if (!isLeader()) {
      // Followers hold the same changes, but only the leader can confirm that an answer with
      // nothing new is current: the watch goes where linearizable reads go.
      return CompletableFuture.failedFuture(new CoordinatorException(Reason.NOT_LEADER,
          "node " + options.nodeId() + " is not the leader", leaderClientAddress(), 0, false));
    }
    long leftMillis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
    long waitFor = Math.min(waitMillis,
        leftMillis - Math.min(TTL_WATCH_ANSWER_RESERVE_MILLIS, leftMillis / 2));
    CompletableFuture<Void> ready;
    if (fromIndex < 0 || waitFor <= 0 || !keys.isEmpty()) {
      ready = CompletableFuture.completedFuture(null);
    } else {
      ready = ttlChanges.awaitChange(namespace, fromIndex);
      if (!ready.isDone()) {
        CompletableFuture<Void> waiting = ready;
        try {
          java.util.concurrent.ScheduledFuture<?> timer = watchTimers.schedule(() -> {
            ttlChanges.cancel(namespace, waiting);
            waiting.complete(null);
          }, waitFor, TimeUnit.MILLISECONDS);
          waiting.whenComplete((v, e) -> timer.cancel(false));
        } catch (java.util.concurrent.RejectedExecutionException e) {
          ttlChanges.cancel(namespace, waiting);
          return CompletableFuture.failedFuture(new CoordinatorException(Reason.UNAVAILABLE,
              "node " + options.nodeId() + " is shutting down", "", 100, false));
        }
      }
    }
    boolean mustConfirm = confirm || !keys.isEmpty() || fromIndex < 0;
    // Never on the caller's thread (a Netty event loop): the answer may wait for the state lock.
    return ready.thenComposeAsync(woken -> {
      if (!mustConfirm) {
        // Changes applied here were committed: facts, sent without a heartbeat round. Only an
        // answer that claims "nothing more before you asked" needs the ReadIndex.
        Optional<TtlWatchAnswer> facts = stateMachine.tryWithState(s ->
            watchAnswer(s, namespace, fromIndex, keys, false));
        if (facts.isPresent() && !facts.get().changes().isEmpty()) {
          return CompletableFuture.completedFuture(facts.get());
        }
      }
      return query(new Query.GetNamespace(namespace), false, deadlineNanos).thenApply(read ->
          stateMachine.withState(s -> watchAnswer(s, namespace, fromIndex, keys, true)));
    }, watchTimers);
  }

  /** Under the state's read lock: the watch answer as of the applied index. */
  private TtlWatchAnswer watchAnswer(CoordinatorState s, String namespace, long fromIndex,
      List<String> keys, boolean confirmed) {
    long applied = s.appliedIndex();
    // After a ReadIndex the applied index covers every committed entry, so a position beyond it
    // was never this cluster's (another cluster's, or one before a restore to an older backup):
    // the watcher cannot know what it missed, and is told so.
    TtlChangeLog.Slice slice = confirmed && fromIndex > applied
        ? new TtlChangeLog.Slice(List.of(), applied, true)
        : ttlChanges.read(namespace, fromIndex < 0 ? applied : fromIndex, applied,
            TTL_WATCH_CHANGES_PER_ANSWER);
    long readNow = clock.running() ? Math.max(clock.now(), s.nowMillis()) : s.nowMillis();
    boolean truncated = slice.throughIndex() < applied && !slice.compacted();
    List<EntryView> entries = new ArrayList<>();
    if (!truncated) {
      for (String key : keys) {
        QueryResult r = s.query(new Query.GetEntry(namespace, key), readNow);
        if (r instanceof QueryResult.EntryAnswer answer) {
          answer.entry().ifPresent(entries::add);
        } else {
          // A namespace whose tenant's slot this group does not serve has no entries here.
          break;
        }
      }
    }
    return new TtlWatchAnswer(slice.changes(), slice.throughIndex(), slice.compacted(),
        truncated, entries, readNow, confirmed);
  }

  /** Changes held for TTL watches, and the watches waiting for one (monitoring). */
  public TtlChangeLog ttlChanges() {
    return ttlChanges;
  }

  private void completeRead(
      long id, CompletableFuture<QueryResult> result, RaftClientReply reply, Throwable error) {
    Optional<PendingReads.Read> read = reads.remove(id);
    if (error != null) {
      Throwable cause = error instanceof CompletionException && error.getCause() != null
          ? error.getCause() : error;
      result.completeExceptionally(cause instanceof CoordinatorException ce ? ce
          : new CoordinatorException(Reason.UNAVAILABLE, "read failed: " + cause,
              leaderClientAddress(), 0, false));
    } else if (reply.isSuccess() && read.isPresent() && read.get().result != null) {
      result.complete(read.get().result);
    } else if (reply.getNotLeaderException() != null || reply.getLeaderNotReadyException() != null) {
      result.completeExceptionally(new CoordinatorException(Reason.NOT_LEADER,
          "read: " + reply.getException().getMessage(), leaderClientAddress(), 0, false));
    } else {
      String why = reply.getException() != null ? reply.getException().getMessage() : "no answer";
      result.completeExceptionally(new CoordinatorException(Reason.UNAVAILABLE,
          "read failed: " + why, leaderClientAddress(), 50, false));
    }
  }

  /** The replicated tokens and grants as this node last applied them (no lock). */
  public dev.ration.statemachine.security.SecurityTable securityTable() {
    return stateMachine.securityTable();
  }

  /** Snapshots this node installed from the leader since it started. */
  public long snapshotInstalls() {
    return stateMachine.snapshotInstalls();
  }

  /** The ledger time of the last entry this node applied (no lock). */
  public long appliedNowMillis() {
    return stateMachine.publishedNowMillis();
  }

  @Override
  public NodeStatus status() {
    RaftServer.Division d = division;
    String role = "UNKNOWN";
    long term = 0;
    long commit = 0;
    long applied = 0;
    String leaderId = "";
    if (d != null) {
      DivisionInfo info = d.getInfo();
      // Ratis leaves a closed division's role as it was: a removed leader would say LEADER.
      role = removed(d) ? NodeStatus.REMOVED
          : info.isAlive() ? info.getCurrentRole().name() : "UNKNOWN";
      term = info.getCurrentTerm();
      applied = info.getLastAppliedIndex();
      commit = d.getRaftLog().getLastCommittedIndex();
      RaftPeerId leader = leaderOf(d);
      leaderId = leader == null ? "" : leader.toString();
    }
    long[] ledger = stateMachine.tryWithState(s -> new long[] {s.nowMillis(), s.epoch()})
        .orElse(new long[] {-1, -1});
    Members members = members();
    // Nothing called from here may call status(): each reads the division directly.
    return new NodeStatus(options.nodeId(), role, term, commit, applied, leaderId,
        leaderClientAddress(), ledger[0], ledger[1], proposer.queueDepth(), members.all(),
        members.listeners().stream().map(Peer::id).toList(), configMismatch(),
        membership.upToDateVotersIfLeader());
  }

  /**
   * True once this node is out of the replicated configuration: a stable one without it, or
   * one without it on a division Ratis has shut down. Ratis closes a removed leader's division
   * as soon as the change commits (and a removed follower's when it finds itself outside the
   * configuration at an election), but its role and leader id stay as they were, so a removed
   * leader would go on calling itself the leader. A newcomer not added yet (an empty
   * configuration) is not removed. While a change is half way the node may still lead it.
   */
  private boolean removed(RaftServer.Division d) {
    RaftConfiguration conf = d.getRaftConf();
    Membered m = membered;
    if (m.conf != conf) {
      // Every request asks; a configuration is immutable, so its answer is worked out once.
      boolean outside = !(conf.getCurrentPeers(RaftPeerRole.FOLLOWER).isEmpty()
          && conf.getCurrentPeers(RaftPeerRole.LISTENER).isEmpty())
          && !inCurrentConf(conf, selfId);
      m = new Membered(conf, outside, conf.getPreviousPeers().isEmpty());
      membered = m;
    }
    return m.outside && (m.stable || !d.getInfo().isAlive());
  }

  /** Whether this node is outside {@code conf} (which names members), and whether it is stable. */
  private record Membered(RaftConfiguration conf, boolean outside, boolean stable) {}

  private volatile Membered membered = new Membered(null, false, true);

  private static boolean inCurrentConf(RaftConfiguration conf, RaftPeerId id) {
    for (RaftPeerRole role : new RaftPeerRole[] {RaftPeerRole.FOLLOWER, RaftPeerRole.LISTENER}) {
      for (RaftPeer p : conf.getCurrentPeers(role)) {
        if (p.getId().equals(id)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * The leader Ratis names, or null when none is known or the name cannot be trusted: a closed
   * or removed division keeps the leader it last knew, itself included, and pointing clients at
   * this node would bring them straight back. A remaining member it names is kept, as a hint
   * that member corrects if it no longer leads.
   */
  private RaftPeerId leaderOf(RaftServer.Division d) {
    RaftPeerId leader = d.getInfo().getLeaderId();
    if (leader == null || (!d.getInfo().isAlive() || removed(d))
        && (leader.equals(selfId) || !inCurrentConf(d.getRaftConf(), leader))) {
      return null;
    }
    return leader;
  }

  /**
   * How long a removed node that knows no remaining leader tells a client to stay away: it will
   * not serve again until it is stopped and added back, and a client that knows only this
   * address fails at once instead of polling it until its deadline. One that names a remaining
   * leader sends none: the client follows the name.
   */
  static final int REMOVED_RETRY_AFTER_MILLIS = 60_000;

  /** The definite answer of a node that is no longer a member: go elsewhere, and stop it. */
  private CoordinatorException removedError() {
    Members m = members();
    String leader = leaderClientAddress();
    return new CoordinatorException(Reason.NOT_LEADER, "node " + options.nodeId()
        + " was removed from the cluster configuration (now " + Membership.describe(m)
        + ") and serves no requests; ask a remaining member, and stop this node",
        leader, leader == null || leader.isEmpty() ? REMOVED_RETRY_AFTER_MILLIS : 0, false);
  }

  /**
   * The replicated Raft configuration as this node knows it: voters, non-voting listeners, and
   * whether a change is half way (Ratis's joint configuration). Before start: the file's peers.
   */
  public record Members(List<Peer> voters, List<Peer> listeners, boolean changing) {
    public Members {
      voters = List.copyOf(voters);
      listeners = List.copyOf(listeners);
    }

    /** Voters then listeners. */
    public List<Peer> all() {
      return Stream.concat(voters.stream(), listeners.stream()).toList();
    }

    public Optional<Peer> find(String id) {
      return all().stream().filter(p -> p.id().equals(id)).findFirst();
    }

    public boolean isVoter(String id) {
      return voters.stream().anyMatch(p -> p.id().equals(id));
    }

    public boolean isListener(String id) {
      return listeners.stream().anyMatch(p -> p.id().equals(id));
    }
  }

  /** This node's view of the replicated configuration (see {@link Members}). */
  public Members members() {
    RaftServer.Division d = division;
    if (d == null) {
      return new Members(options.peers(), List.of(), false);
    }
    RaftConfiguration conf = d.getRaftConf();
    return new Members(
        toPeers(conf.getCurrentPeers(RaftPeerRole.FOLLOWER)),
        toPeers(conf.getCurrentPeers(RaftPeerRole.LISTENER)),
        !conf.getPreviousPeers().isEmpty());
  }

  private List<Peer> toPeers(java.util.Collection<RaftPeer> raftPeers) {
    return raftPeers.stream().map(this::toPeer)
        .sorted(java.util.Comparator.comparing(Peer::id)).toList();
  }

  /** A replicated peer; addresses it does not carry (a cluster formed before they were) come from the file. */
  private Peer toPeer(RaftPeer p) {
    String id = p.getId().toString();
    Optional<Peer> configured = options.peers().stream().filter(c -> c.id().equals(id)).findFirst();
    return new Peer(id, p.getAddress(),
        orElse(p.getClientAddress(), configured.map(Peer::clientAddress).orElse("")),
        orElse(p.getAdminAddress(), configured.map(Peer::adminAddress).orElse("")));
  }

  private static String orElse(String value, String fallback) {
    return value == null || value.isEmpty() ? fallback : value;
  }

  /**
   * "" when the configuration file's {@code cluster.peers} names the same members (ids and Raft
   * addresses) as the replicated configuration; otherwise both, so an operator sees which file
   * to update. The replicated configuration is the one in force.
   */
  public String configMismatch() {
    Members m = members();
    if (m.all().isEmpty()) {
      return "this node is not in the replicated configuration yet (started with --join; "
          + "add it with `ration cluster add`)";
    }
    java.util.Set<String> replicated = new java.util.TreeSet<>();
    m.all().forEach(p -> replicated.add(p.id() + "@" + p.raftAddress()));
    java.util.Set<String> file = new java.util.TreeSet<>();
    options.peers().forEach(p -> file.add(p.id() + "@" + p.raftAddress()));
    if (replicated.equals(file)) {
      return "";
    }
    return "replicated configuration has " + Membership.describe(m) + "; cluster.peers in the file lists "
        + options.peers().stream().map(p -> p.id() + "@" + p.raftAddress()).toList();
  }

  /** The current Raft term: an atomic read, no lock (log lines read it); 0 before start. */
  public long currentTerm() {
    RaftServer.Division d = division;
    return d == null ? 0 : d.getInfo().getCurrentTerm();
  }

  /** The Raft commit index: an atomic read, no lock (log lines read it); 0 before start. */
  public long commitIndex() {
    RaftServer.Division d = division;
    return d == null ? 0 : d.getRaftLog().getLastCommittedIndex();
  }

  /** The store's RocksDB figures (metrics); empty while the state is busy or closed. */
  public java.util.Map<String, Long> storeProperties() {
    return stateMachine.tryWithState(CoordinatorState::storeProperties).orElse(java.util.Map.of());
  }

  /** Log time minus the earliest due expiry at the last tick check; 0 if none or not leader. */
  public long expiryOverdueMillis() {
    return expiryOverdueMillis;
  }

  /** Group-commit counters for metrics. */
  public GroupCommitStats proposerStats() {
    return proposer.stats();
  }

  /**
   * Leads and can serve: Ratis's role on a division that is still running and still a member
   * (see {@link #removed}; Ratis's own role says LEADER on a removed leader's closed division).
   */
  public boolean isLeader() {
    RaftServer.Division d = division;
    return d != null && d.getInfo().isLeader() && d.getInfo().isAlive() && !removed(d);
  }

  /** A leader whose log clock runs and whose NewEpoch is proposed: client writes may flow. */
  boolean readyLeader() {
    return isLeader() && clock.running() && proposer.epochProposed();
  }

  /** The leader's client address from the configured peers, or "" when no leader is known. */
  public String leaderClientAddress() {
    RaftServer.Division d = division;
    RaftPeerId leader = d == null ? null : leaderOf(d);
    if (leader == null) {
      return "";
    }
    return members().find(leader.toString()).map(Peer::clientAddress).orElse("");
  }

  /**
   * Best effort, for graceful shutdown: hand leadership to another peer and wait for it up to
   * {@code timeout}. Returns quietly if this node is not the leader or the transfer fails.
   */
  public void transferLeadership(Duration timeout) {
    Members members = members();
    Optional<Peer> other = members.voters().stream()
        .filter(p -> !p.id().equals(options.nodeId())).findFirst();
    // A leader that removed itself hands over by itself once the change commits; asking Ratis to
    // transfer from a node outside the configuration never completes.
    if (!isLeader() || other.isEmpty() || !members.isVoter(options.nodeId())) {
      return;
    }
    String target = other.get().id();
    String failure = transferAndWait(RaftPeerId.valueOf(target), timeout);
    if (!failure.isEmpty()) {
      LOG.warn("{}: leadership transfer to {} failed: {}", selfId, target, failure);
    }
  }

  /**
   * Operator action (admin {@code POST /transfer-leadership?to=<id>}, used by the Jepsen suite to
   * put a clock-skewed node in the lead): asks Ratis to hand leadership from this node to peer
   * {@code targetId} and waits for it up to {@code timeout}. Returns "" on success, else why not
   * (not the leader, unknown peer, or the transfer's failure).
   */
  public String transferLeadershipTo(String targetId, Duration timeout) {
    Members members = members();
    if (!members.isVoter(targetId)) {
      return members.isListener(targetId)
          ? "unknown peer " + targetId + ": a listener cannot lead (add it as a voter first)"
          : "unknown peer " + targetId + ": not in the replicated configuration ("
              + Membership.describe(members) + ")";
    }
    if (targetId.equals(options.nodeId())) {
      return isLeader() ? "" : "not the leader (leader: " + leaderIdOrEmpty() + ")";
    }
    if (!isLeader()) {
      return "not the leader (leader: " + leaderIdOrEmpty() + ")";
    }
    String failure = transferAndWait(RaftPeerId.valueOf(targetId), timeout);
    return failure.isEmpty() ? "" : "transfer to " + targetId + " failed: " + failure;
  }

  /**
   * Ends this leader's term without naming a successor (Ratis steps down; an election follows,
   * which this node may win again, in a new term). Returns "" on success, else why not.
   */
  String stepDown(Duration timeout) {
    if (!isLeader()) {
      return "not the leader (leader: " + leaderIdOrEmpty() + ")";
    }
    String failure = transferAndWait(null, timeout);
    return failure.isEmpty() ? "" : "step-down failed: " + failure;
  }

  /**
   * Asks Ratis to hand this leader's term to {@code target} (null: to nobody, a step-down) and
   * waits up to {@code timeout} and half a second more. Returns "" on success, else the failure.
   */
  private String transferAndWait(RaftPeerId target, Duration timeout) {
    TransferLeadershipRequest request = new TransferLeadershipRequest(clientId, selfId, groupId,
        callIds.incrementAndGet(), target, timeout.toMillis());
    try {
      RaftClientReply reply =
          transferAsync(request).get(timeout.toMillis() + 500, TimeUnit.MILLISECONDS);
      return reply.isSuccess() ? "" : String.valueOf(reply.getException());
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      return e.toString();
    }
  }

  /**
   * Ratis's transferLeadershipAsync can block its caller (it joins an internal future); run it
   * on a thread of its own so the caller's timeout holds whatever Ratis does.
   */
  private CompletableFuture<RaftClientReply> transferAsync(TransferLeadershipRequest request) {
    CompletableFuture<RaftClientReply> result = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        server.transferLeadershipAsync(request).whenComplete((reply, error) -> {
          if (error != null) {
            result.completeExceptionally(error);
          } else {
            result.complete(reply);
          }
        });
      } catch (IOException | RuntimeException e) {
        result.completeExceptionally(e);
      }
    }, "ration-transfer-" + options.nodeId());
    t.setDaemon(true);
    t.start();
    return result;
  }

  /** The leader's id as {@link #leaderOf} has it, or "": for answers that name the leader. */
  String leaderIdOrEmpty() {
    RaftServer.Division d = division;
    RaftPeerId leader = d == null ? null : leaderOf(d);
    return leader == null ? "" : leader.toString();
  }

  /** Ticker: on a ready leader, propose a Tick when something is due at the current log time. */
  private void tick() {
    try {
      if (!isLeader() || !clock.running() || !proposer.epochProposed()) {
        expiryOverdueMillis = 0;
        return;
      }
      Optional<Long> due = stateMachine.tryWithState(CoordinatorState::nextDueMillis);
      if (due.isPresent()) {
        long now = clock.now();
        expiryOverdueMillis = due.get() == Long.MAX_VALUE ? 0 : Math.max(0, now - due.get());
        if (due.get() <= now) {
          proposer.requestTick();
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("{}: tick check failed", selfId, e);
    }
  }

  /** Leadership events from the state machine (Ratis threads). */
  private final class Leadership implements RationStateMachine.Leadership {
    @Override
    public void leaderReady() {
      // Called by the state-machine updater once this term's first entry is applied, so the
      // ledger clock already includes every earlier entry: log time continues from it.
      long ledgerNow = stateMachine.withState(CoordinatorState::nowMillis);
      clock.start(ledgerNow);
      LOG.info("{}: leader ready, log clock starts at {}", selfId, ledgerNow);
      proposer.leaderReady();
    }

    @Override
    public CompletableFuture<Result> forwarded(RequestKey key, Command command, long timeoutMillis) {
      forwardsReceived.incrementAndGet();
      long deadline = nanoClock.getAsLong() + TimeUnit.MILLISECONDS.toNanos(Math.max(1, timeoutMillis));
      return submitHere(key, command, deadline);
    }

    @Override
    public void leaderChanged(RaftPeerId newLeaderId) {
      if (!selfId.equals(newLeaderId)) {
        clock.stop();
        Proposer p = proposer;
        if (p != null) {
          p.leadershipLost();
        }
      }
    }
  }

  /** Data directory layout, for tools and tests. */
  public Path raftDir() {
    return options.dataDir().toAbsolutePath().resolve("raft");
  }

  RationStateMachine stateMachine() {
    return stateMachine;
  }

  RaftServer.Division division() {
    return division;
  }

  RaftServer server() {
    return server;
  }

  ConsensusOptions options() {
    return options;
  }

  String selfId() {
    return options.nodeId();
  }

  /** A setConfiguration request from this node's own Ratis client identity. */
  SetConfigurationRequest setConfigurationRequest(SetConfigurationRequest.Arguments args) {
    return new SetConfigurationRequest(clientId, selfId, groupId, callIds.incrementAndGet(), args);
  }

  /**
   * A consistent checkpoint for a backup (docs/OPERATIONS.md, "Backup and restore"). By default
   * only on the leader, after its state machine has applied everything committed when the call
   * began: the checkpoint then holds every write acknowledged before the call. {@code stale}
   * takes this node's applied state as it is, on any node (a survivor of a lost majority). The
   * caller streams it and closes it.
   */
  public Backups.Prepared prepareBackup(boolean stale, Duration timeout) throws Backups.BackupException {
    long deadline = System.nanoTime() + timeout.toNanos();
    if (!stale) {
      if (!isLeader()) {
        String leader = leaderIdOrEmpty();
        throw new Backups.BackupException("not the leader (leader: "
            + (leader.isEmpty() ? "unknown" : leader) + "); or take a stale backup of this node",
            true, members().find(leader).map(Peer::adminAddress).orElse(""));
      }
      long target = commitIndex();
      for (int polls = 0; stateMachine.getLastAppliedTermIndex().getIndex() < target; polls++) {
        if (System.nanoTime() - deadline >= 0 || polls > 100_000) {
          throw new Backups.BackupException("applied index " + stateMachine.getLastAppliedTermIndex()
              + " did not reach the commit index " + target + " in " + timeout, false, "");
        }
        try {
          Thread.sleep(5);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new Backups.BackupException("interrupted", false, "");
        }
      }
    }
    Path dir = options.dataDir().toAbsolutePath().resolve("backup.tmp." + System.nanoTime());
    try {
      dev.ration.statemachine.CheckpointManifest manifest =
          stateMachine.checkpointTo(dir.resolve("checkpoint"));
      LOG.info("{}: backup checkpoint term={} index={} stale={} at {}", selfId, manifest.term(),
          manifest.index(), stale, dir);
      return new Backups.Prepared(dir,
          Backups.header(options.groupId(), options.nodeId(), manifest));
    } catch (RuntimeException e) {
      try {
        SnapshotDirs.deleteTree(dir);
      } catch (IOException ignored) {
        // The failure below matters more; a leftover backup.tmp directory is harmless.
      }
      throw new Backups.BackupException("checkpoint failed: " + e.getMessage(), false, "");
    }
  }

  /** Membership changes (add, remove, replace, transfer leadership), run on the leader. */
  public Membership membership() {
    return membership;
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
    Forwarder f = forwarder;
    if (f != null) {
      closeQuietly(f.client);
    }
    Proposer p = proposer;
    if (p != null) {
      p.close();
    }
    clock.stop();
    try {
      server.close();
    } catch (IOException e) {
      throw new UncheckedIOException("closing raft server " + selfId, e);
    } finally {
      // After the server: until it closed, this node still applied entries and woke watches.
      watchTimers.shutdownNow();
    }
  }
}
