package dev.ration.server.consensus;

import dev.ration.server.consensus.CoordinatorException.Reason;
import dev.ration.statemachine.CoordinatorState;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.TransferLeadershipRequest;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
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
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong(1L << 40);
  private volatile Proposer proposer;
  /** Written by the ticker thread, read by metrics. */
  private volatile long expiryOverdueMillis;
  private volatile RaftServer.Division division;

  private ConsensusNode(ConsensusOptions options, LongSupplier nanoClock, Terminator terminator)
      throws IOException {
    this.options = options;
    this.groupId = RaftGroupId.valueOf(UUID.fromString(options.groupId()));
    this.selfId = RaftPeerId.valueOf(options.self().id());
    this.clock = new LogClock(nanoClock);
    Path dataDir = options.dataDir().toAbsolutePath();
    Path raftDir = dataDir.resolve("raft");
    this.stateMachine = new RationStateMachine(
        dataDir.resolve("state"), options.stateOptions(), terminator, reads, new Leadership());
    List<RaftPeer> peers = options.peers().stream()
        .map(p -> RaftPeer.newBuilder().setId(p.id()).setAddress(p.raftAddress()).build())
        .toList();
    RaftStorage.StartupOption startup = isAbsentOrEmpty(raftDir)
        ? RaftStorage.StartupOption.FORMAT
        : RaftStorage.StartupOption.RECOVER;
    LOG.info("{}: starting ({}) with raft storage {} and peers {}", selfId, startup, raftDir, peers);
    this.server = RaftServer.newBuilder()
        .setServerId(selfId)
        .setGroup(RaftGroup.valueOf(groupId, peers))
        .setStateMachine(stateMachine)
        .setProperties(properties(options, raftDir))
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

  /** Start with an injected monotonic clock and terminator (tests). */
  public static ConsensusNode start(
      ConsensusOptions options, LongSupplier nanoClock, Terminator terminator) throws IOException {
    validate(options);
    ConsensusNode node = new ConsensusNode(options, nanoClock, terminator);
    try {
      node.server.start();
      node.division = node.server.getDivision(node.groupId);
      node.proposer.start();
      long tickMillis = Math.max(1, options.tickInterval().toMillis());
      node.scheduler.scheduleWithFixedDelay(
          node::tick, tickMillis, tickMillis, TimeUnit.MILLISECONDS);
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

  /** Ratis settings per RATIS-ROCKSDB-NOTES §5; each node gets its own copy. */
  static RaftProperties properties(ConsensusOptions o, Path raftDir) {
    RaftProperties p = new RaftProperties();
    RaftServerConfigKeys.setStorageDir(p, List.of(raftDir.toFile()));
    RaftServerConfigKeys.setStorageFreeSpaceMin(p, SizeInBytes.valueOf("16MB"));
    HostPort raft = HostPort.parse(o.self().raftAddress());
    GrpcConfigKeys.Server.setHost(p, raft.host());
    GrpcConfigKeys.Server.setPort(p, raft.port());

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
    return p;
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

  @Override
  public CompletableFuture<Result> submit(RequestKey key, Command command, long deadlineNanos) {
    return proposer.submit(key, command, deadlineNanos);
  }

  @Override
  public CompletableFuture<QueryResult> query(Query query, boolean stale, long deadlineNanos) {
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
      role = info.getCurrentRole().name();
      term = info.getCurrentTerm();
      applied = info.getLastAppliedIndex();
      commit = d.getRaftLog().getLastCommittedIndex();
      RaftPeerId leader = info.getLeaderId();
      leaderId = leader == null ? "" : leader.toString();
    }
    long[] ledger = stateMachine.tryWithState(s -> new long[] {s.nowMillis(), s.epoch()})
        .orElse(new long[] {-1, -1});
    return new NodeStatus(options.nodeId(), role, term, commit, applied, leaderId,
        leaderClientAddress(), ledger[0], ledger[1], proposer.queueDepth(), options.peers());
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

  public boolean isLeader() {
    RaftServer.Division d = division;
    return d != null && d.getInfo().isLeader();
  }

  /** A leader whose log clock runs and whose NewEpoch is proposed: client writes may flow. */
  boolean readyLeader() {
    return isLeader() && clock.running() && proposer.epochProposed();
  }

  /** The leader's client address from the configured peers, or "" when no leader is known. */
  public String leaderClientAddress() {
    RaftServer.Division d = division;
    if (d == null) {
      return "";
    }
    RaftPeerId leader = d.getInfo().getLeaderId();
    if (leader == null) {
      return "";
    }
    String id = leader.toString();
    return options.peers().stream().filter(p -> p.id().equals(id)).map(Peer::clientAddress)
        .findFirst().orElse("");
  }

  /**
   * Best effort, for graceful shutdown: hand leadership to another peer and wait for it up to
   * {@code timeout}. Returns quietly if this node is not the leader or the transfer fails.
   */
  public void transferLeadership(Duration timeout) {
    if (!isLeader() || options.peers().size() < 2) {
      return;
    }
    Peer target = options.peers().stream().filter(p -> !p.id().equals(options.nodeId()))
        .findFirst().orElseThrow();
    TransferLeadershipRequest request = new TransferLeadershipRequest(clientId, selfId, groupId,
        callIds.incrementAndGet(), RaftPeerId.valueOf(target.id()), timeout.toMillis());
    try {
      RaftClientReply reply =
          server.transferLeadershipAsync(request).get(timeout.toMillis() + 500, TimeUnit.MILLISECONDS);
      if (!reply.isSuccess()) {
        LOG.warn("{}: leadership transfer to {} failed: {}", selfId, target.id(), reply.getException());
      }
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      LOG.warn("{}: leadership transfer to {} failed", selfId, target.id(), e);
    }
  }

  /**
   * Operator action (admin {@code POST /transfer-leadership?to=<id>}, used by the Jepsen suite to
   * put a clock-skewed node in the lead): asks Ratis to hand leadership from this node to peer
   * {@code targetId} and waits for it up to {@code timeout}. Returns "" on success, else why not
   * (not the leader, unknown peer, or the transfer's failure).
   */
  public String transferLeadershipTo(String targetId, Duration timeout) {
    if (options.peers().stream().noneMatch(p -> p.id().equals(targetId))) {
      return "unknown peer " + targetId;
    }
    if (targetId.equals(options.nodeId())) {
      return isLeader() ? "" : "not the leader (leader: " + leaderIdOrEmpty() + ")";
    }
    if (!isLeader()) {
      return "not the leader (leader: " + leaderIdOrEmpty() + ")";
    }
    TransferLeadershipRequest request = new TransferLeadershipRequest(clientId, selfId, groupId,
        callIds.incrementAndGet(), RaftPeerId.valueOf(targetId), timeout.toMillis());
    try {
      RaftClientReply reply =
          server.transferLeadershipAsync(request).get(timeout.toMillis() + 500, TimeUnit.MILLISECONDS);
      return reply.isSuccess() ? "" : "transfer to " + targetId + " failed: " + reply.getException();
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      return "transfer to " + targetId + " failed: " + e;
    }
  }

  private String leaderIdOrEmpty() {
    RaftServer.Division d = division;
    RaftPeerId leader = d == null ? null : d.getInfo().getLeaderId();
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

  @Override
  public void close() {
    scheduler.shutdownNow();
    Proposer p = proposer;
    if (p != null) {
      p.close();
    }
    clock.stop();
    try {
      server.close();
    } catch (IOException e) {
      throw new UncheckedIOException("closing raft server " + selfId, e);
    }
  }
}
