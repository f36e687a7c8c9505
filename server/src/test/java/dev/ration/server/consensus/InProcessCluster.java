package dev.ration.server.consensus;

import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import dev.ration.testkit.FreePorts;
import dev.ration.testkit.Waits;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * A 3-node (or n-node) Ration consensus cluster in one JVM: real Ratis over gRPC on 127.0.0.1
 * (free ports), real RocksDB under a test directory, short timeouts for tests. Nodes can be
 * stopped and restarted by id; their data stays. Apply failures are recorded instead of halting
 * the JVM, and {@link #close} fails the test if any happened.
 */
final class InProcessCluster implements AutoCloseable {
  /** How often the cluster's waits look again. */
  static final Duration POLL = Duration.ofMillis(20);

  private final Path root;
  private final String groupId = UUID.randomUUID().toString();
  private final List<Peer> peers;
  private final UnaryOperator<ConsensusOptions> tweak;
  /** Concurrent: a load thread looks for the leader while the test starts and stops nodes. */
  private final Map<String, ConsensusNode> running = new java.util.concurrent.ConcurrentSkipListMap<>();
  final List<String> fatalErrors = Collections.synchronizedList(new ArrayList<>());
  /** Each node's monotonic clock (a test may make one run behind); System::nanoTime by default. */
  java.util.function.Function<String, java.util.function.LongSupplier> clocks = id -> System::nanoTime;

  InProcessCluster(Path root, int size, UnaryOperator<ConsensusOptions> tweak) {
    this.root = root;
    this.tweak = tweak;
    List<Peer> list = new ArrayList<>();
    for (int i = 1; i <= size; i++) {
      list.add(new Peer("n" + i, "127.0.0.1:" + FreePorts.next(), "127.0.0.1:" + (20000 + i),
          "127.0.0.1:" + (21000 + i)));
    }
    this.peers = List.copyOf(list);
  }

  /** Options suitable for tests: 300-600 ms elections, small batches, a tick every 100 ms. */
  ConsensusOptions options(String id) {
    ConsensusOptions base = new ConsensusOptions(
        id, groupId, peers, root.resolve(id),
        Duration.ofMillis(300), Duration.ofMillis(600), Duration.ofSeconds(3),
        10_000, 0, 1 << 20,
        256, 64 << 10, Duration.ofMillis(2), 4, 1_000,
        Duration.ofMillis(100), 100, StateOptions.defaults());
    return tweak.apply(base);
  }

  List<String> ids() {
    return peers.stream().map(Peer::id).toList();
  }

  InProcessCluster startAll() {
    for (String id : ids()) {
      start(id);
    }
    return this;
  }

  ConsensusNode start(String id) {
    if (running.containsKey(id)) {
      throw new IllegalStateException(id + " already running");
    }
    try {
      ConsensusNode node = ConsensusNode.start(options(id), clocks.apply(id),
          (message, cause) -> fatalErrors.add(id + ": " + message));
      running.put(id, node);
      return node;
    } catch (IOException e) {
      throw new UncheckedIOException("start " + id, e);
    }
  }

  /** A peer for a node that is not in the initial configuration (a newcomer), on free ports. */
  Peer newPeer(String id) {
    return new Peer(id, "127.0.0.1:" + FreePorts.next(), "127.0.0.1:" + FreePorts.next(),
        "127.0.0.1:" + FreePorts.next());
  }

  /**
   * Starts a newcomer as `ration server --join` would: with its own configuration file's peers
   * (the initial members plus itself), an empty data directory unless one is left from before,
   * waiting to be added.
   */
  ConsensusNode startJoining(Peer peer) {
    if (running.containsKey(peer.id())) {
      throw new IllegalStateException(peer.id() + " already running");
    }
    List<Peer> withSelf = new ArrayList<>(peers);
    withSelf.add(peer);
    ConsensusOptions base = options(peers.get(0).id());
    ConsensusOptions o = new ConsensusOptions(peer.id(), base.groupId(), withSelf,
        root.resolve(peer.id()), base.electionTimeoutMin(), base.electionTimeoutMax(),
        base.requestTimeout(), base.snapshotThresholdEntries(), base.purgePreservedEntries(),
        base.segmentSizeBytes(), base.batchMaxCommands(), base.batchMaxBytes(), base.batchLinger(),
        base.maxEntriesInFlight(), base.queueCapacity(), base.tickInterval(), base.tickMaxItems(),
        base.stateOptions());
    try {
      ConsensusNode node = ConsensusNode.start(o, true, clocks.apply(peer.id()),
          (message, cause) -> fatalErrors.add(peer.id() + ": " + message));
      running.put(peer.id(), node);
      return node;
    } catch (IOException e) {
      throw new UncheckedIOException("start joining " + peer.id(), e);
    }
  }

  /** Deletes a stopped node's data directory (a dead disk). */
  void wipe(String id) {
    if (running.containsKey(id)) {
      throw new IllegalStateException(id + " is running");
    }
    try {
      SnapshotDirs.deleteTree(root.resolve(id));
    } catch (IOException e) {
      throw new UncheckedIOException("wipe " + id, e);
    }
  }

  void stop(String id) {
    ConsensusNode node = running.remove(id);
    if (node == null) {
      throw new IllegalStateException(id + " is not running");
    }
    node.close();
  }

  ConsensusNode node(String id) {
    ConsensusNode node = running.get(id);
    if (node == null) {
      throw new IllegalStateException(id + " is not running");
    }
    return node;
  }

  List<ConsensusNode> runningNodes() {
    return List.copyOf(running.values());
  }

  /** The running node that is a leader and has proposed its NewEpoch, within {@code timeout}. */
  ConsensusNode awaitLeader(Duration timeout) {
    return Waits.upTo(timeout).every(POLL)
        .until("a ready leader among " + running.keySet(),
            () -> running.values().stream().filter(ConsensusNode::readyLeader).findFirst(),
            Optional::isPresent)
        .orElseThrow();
  }

  String idOf(ConsensusNode node) {
    return running.entrySet().stream().filter(e -> e.getValue() == node).map(Map.Entry::getKey)
        .findFirst().orElseThrow();
  }

  /**
   * Submit through whichever node leads, retrying NOT_LEADER / UNAVAILABLE with the same key
   * (safe: the state answers a retried key with its first result), for at most {@code timeout}.
   */
  Result submit(RequestKey key, Command command, Duration timeout) {
    return retry(timeout, () -> {
      ConsensusNode leader = awaitLeader(timeout);
      return leader.submit(key, command, System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
    });
  }

  QueryResult query(Query query, Duration timeout) {
    return retry(timeout, () -> {
      ConsensusNode leader = awaitLeader(timeout);
      return leader.query(query, false, System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
    });
  }

  /**
   * Tries again 50 ms after NOT_LEADER, UNAVAILABLE and the like, and after an attempt that got
   * no answer within 5 s, until {@code timeout}. DEADLINE_EXCEEDED or any other failure fails
   * the test at once.
   */
  private static <T> T retry(
      Duration timeout, Supplier<java.util.concurrent.CompletableFuture<T>> attempt) {
    return Waits.upTo(timeout).every(Duration.ofMillis(50)).retrying("a successful request",
        e -> e instanceof ExecutionException || e instanceof TimeoutException,
        () -> {
          try {
            return attempt.get().get(5, TimeUnit.SECONDS);
          } catch (ExecutionException e) {
            if (e.getCause() instanceof CoordinatorException ce
                && ce.reason() != CoordinatorException.Reason.DEADLINE_EXCEEDED) {
              throw e;
            }
            throw new AssertionError("request failed", e.getCause());
          }
        });
  }

  Optional<ConsensusNode> find(String id) {
    return Optional.ofNullable(running.get(id));
  }

  @Override
  public void close() {
    for (String id : List.copyOf(running.keySet())) {
      try {
        stop(id);
      } catch (RuntimeException e) {
        // Keep closing the others; the test's own assertions matter more.
      }
    }
    if (!fatalErrors.isEmpty()) {
      throw new AssertionError("apply failures (fail-stop): " + fatalErrors);
    }
  }
}
