package dev.ration.server.observability;

import dev.ration.wire.ErrorCode;
import dev.ration.server.BuildInfo;
import dev.ration.server.consensus.Coordinator;
import dev.ration.server.consensus.GroupCommitStats;
import dev.ration.server.consensus.NodeStatus;
import dev.ration.server.endpoint.EndpointListener;
import dev.ration.wire.lease.LimitStatus;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.DiskSpaceMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's Prometheus metrics (names and meanings in docs/OPERATIONS.md): request counts and
 * latency from the endpoint, Raft and ledger gauges read from {@link NodeStatus} at scrape
 * time, and per-limit ledger gauges refreshed every few seconds from a stale ListLimits query.
 *
 * <p>Thread-safe: endpoint event loops record concurrently; the refresher runs on its own
 * daemon thread; scrapes come from the admin HTTP threads. Per-limit series are bounded by
 * {@link #LIMITS_EXPORTED_MAX} so a large catalog cannot blow up a scrape.
 */
public final class ServerMetrics implements EndpointListener, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ServerMetrics.class);

  public static final int LIMITS_EXPORTED_MAX = 1_000;
  /** Roles a node reports (Ratis's RaftPeerRole names); one role gauge series each. */
  static final List<String> ROLES = List.of("LEADER", "FOLLOWER", "CANDIDATE", "LISTENER");

  private final PrometheusMeterRegistry registry;
  private final ConcurrentHashMap<String, Counter> requestCounters = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Timer> latencyTimers = new ConcurrentHashMap<>();
  private final Counter overloaded;
  private final Counter refused;
  private final Counter tlsHandshakeFailures;
  private final Counter helloTimeouts;
  private final Counter frameTimeouts;
  private final AtomicInteger openConnections = new AtomicInteger();
  private final List<LimitGauge> limitGauges = new ArrayList<>();
  private final Counter limitRefreshFailures;
  private ScheduledExecutorService refresher;
  /** Binders holding resources (GC notification listeners) released on close. */
  private final List<AutoCloseable> closeables = new ArrayList<>();
  /** Objects metered through weak references that nothing else holds. */
  private final List<Object> strongReferences = new ArrayList<>();

  /** One per-limit figure exported as a multi-gauge tagged by tenant and resource. */
  private record LimitGauge(MultiGauge gauge, ToLongFunction<LimitStatus> value) {}

  public ServerMetrics() {
    this(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
  }

  public ServerMetrics(PrometheusMeterRegistry registry) {
    this.registry = registry;
    BuildInfo build = BuildInfo.current();
    // The commit as `ration --version` prints it (12 hex digits), so the two can be compared
    // by eye and by a dashboard's text match.
    Gauge.builder("ration.build.info", () -> 1)
        .description("1, labelled with the version and the git commit (12 hex digits) this node was built from")
        .tags("version", build.version(), "commit", build.shortCommit())
        .strongReference(true)
        .register(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new JvmMemoryMetrics().bindTo(registry);
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(registry);
    closeables.add(gc);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
    this.overloaded =
        Counter.builder("ration.overloaded")
            .description("Requests refused OVERLOADED (per-connection cap or group-commit queue full)")
            .register(registry);
    this.refused =
        Counter.builder("ration.connections.refused")
            .description("Connections closed at once because maxConnections were open")
            .register(registry);
    this.tlsHandshakeFailures =
        Counter.builder("ration.tls.handshake.failures")
            .description("TLS handshakes on the client port that failed (no or a refused client certificate, not TLS)")
            .register(registry);
    this.helloTimeouts =
        Counter.builder("ration.connections.timed.out")
            .tag("reason", "hello")
            .description("Connections closed because they stalled: no HELLO within endpoint.hello-timeout, or a frame begun and not finished within endpoint.frame-timeout")
            .register(registry);
    this.frameTimeouts =
        Counter.builder("ration.connections.timed.out")
            .tag("reason", "frame")
            .description("Connections closed because they stalled: no HELLO within endpoint.hello-timeout, or a frame begun and not finished within endpoint.frame-timeout")
            .register(registry);
    Gauge.builder("ration.connections.open", openConnections, AtomicInteger::get)
        .description("Client connections being served")
        .register(registry);
    this.limitRefreshFailures =
        Counter.builder("ration.limit.refresh.failures")
            .description("Per-limit gauge refreshes that failed (stale ListLimits query)")
            .register(registry);
    limitGauge("ration.limit.rate", "Configured refill rate R per second", s -> s.limit().ratePerSecond());
    limitGauge("ration.limit.burst", "Configured burst B", s -> s.limit().burst());
    limitGauge("ration.limit.counted.rate", "Sum of counted rate shares (bounded by R)", LimitStatus::countedRate);
    limitGauge("ration.limit.counted.burst", "Sum of counted burst shares (bounded by B)", LimitStatus::countedBurst);
    limitGauge("ration.limit.granted.rate", "Sum of rate shares of current lease versions", LimitStatus::grantedRate);
    limitGauge("ration.limit.granted.burst", "Sum of burst shares of current lease versions", LimitStatus::grantedBurst);
    limitGauge("ration.limit.pool", "Returned tokens available to later grants", LimitStatus::pool);
    limitGauge("ration.limit.leases", "Live leases", s -> s.leases());
    limitGauge("ration.limit.pending.shrinks", "Unacknowledged two-phase shrinks", s -> s.pendingShrinks());
    limitGauge("ration.limit.emergency.reported", "Best-effort emergency budget reported used", LimitStatus::emergencyReported);
  }

  private void limitGauge(String name, String description, ToLongFunction<LimitStatus> value) {
    limitGauges.add(new LimitGauge(MultiGauge.builder(name).description(description).register(registry), value));
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** Prometheus text exposition of every metric. */
  public String scrape() {
    return registry.scrape();
  }

  // ---------------------------------------------------------------- node gauges

  /** Registers the Raft and ledger gauges, read from {@code status} at each scrape. */
  public void bindNode(Supplier<NodeStatus> status) {
    for (String role : ROLES) {
      Gauge.builder("ration.raft.role", status, s -> role.equalsIgnoreCase(s.get().role()) ? 1 : 0)
          .description("1 for this node's current Raft role, 0 for the others")
          .tag("role", role.toLowerCase(Locale.ROOT))
          .strongReference(true)
          .register(registry);
    }
    nodeGauge(status, "ration.raft.term", "Current Raft term", NodeStatus::term);
    nodeGauge(status, "ration.raft.commit.index", "Raft commit index", NodeStatus::commitIndex);
    nodeGauge(status, "ration.raft.applied.index", "Index applied to the ledger", NodeStatus::appliedIndex);
    nodeGauge(status, "ration.group.commit.queue.depth", "Commands waiting for group commit", s -> (long) s.queueDepth());
    nodeGauge(status, "ration.ledger.epoch", "Ledger epoch (rises with each new leader)", NodeStatus::epoch);
    Gauge.builder("ration.ledger.now", status, s -> s.get().ledgerNowMillis() / 1e3)
        .description("Ledger (log) time in seconds (-1 ms while the state is busy or closed)")
        .baseUnit("seconds")
        .strongReference(true)
        .register(registry);
  }

  /**
   * Registers transport security: {@code ration_tls_insecure} (1 when the node runs without TLS)
   * and, with TLS, the expiry time of the certificate each port presents now, in seconds since
   * the epoch ({@code ration_tls_certificate_expiry_seconds{port}}; it moves when a rotated
   * certificate is loaded), and the failed handshakes on the client port.
   */
  public void bindTls(dev.ration.server.tls.ServerTls tls) {
    Gauge.builder("ration.tls.insecure", () -> tls == null ? 1 : 0)
        .description("1 when this node serves every port without TLS (tls mode insecure)")
        .strongReference(true)
        .register(registry);
    if (tls == null) {
      return;
    }
    strongReferences.add(tls);
    // One certificate serves the three ports today; the label keeps the series apart should
    // they ever get their own.
    for (String port : List.of("client", "raft", "admin")) {
      Gauge.builder("ration.tls.certificate.expiry", tls, t -> t.certificateExpiryEpochSeconds())
          .description("When the certificate this port presents expires, in seconds since the epoch")
          .baseUnit("seconds")
          .tags("port", port)
          .register(registry);
    }
    FunctionCounter.builder("ration.raft.peer.refusals", tls, t -> t.raftPeerRefusals())
        .description("Raft connections (either direction) refused because the peer's certificate, though of the CA, "
            + "is not a node certificate")
        .register(registry);
  }

  @Override
  public void tlsHandshakeFailed() {
    tlsHandshakeFailures.increment();
  }

  @Override
  public void connectionTimedOut(String reason) {
    ("hello".equals(reason) ? helloTimeouts : frameTimeouts).increment();
  }

  /**
   * Registers the leader's group-commit counters (entries and commands proposed, so their ratio
   * is the batch size; commands dropped at their deadline; entries in flight) and how far the
   * expiry index is behind the log clock (0 when nothing is overdue or on a follower): a value
   * that keeps growing means Ticks do not keep up and expired leases stay counted longer.
   */
  public void bindGroupCommit(Supplier<GroupCommitStats> stats, LongSupplier expiryOverdueMillis) {
    groupCommitCounter(stats, "ration.group.commit.entries", "Raft entries proposed by group commit on this node", GroupCommitStats::entriesProposed);
    groupCommitCounter(stats, "ration.group.commit.commands", "Client commands proposed in group-commit entries on this node", GroupCommitStats::commandsProposed);
    groupCommitCounter(stats, "ration.group.commit.entries.direct", "Group-commit entries proposed at once by the submitting thread (a lone command with nothing in flight)", GroupCommitStats::entriesDirect);
    groupCommitCounter(stats, "ration.group.commit.expired", "Commands dropped because their deadline passed before they were proposed", GroupCommitStats::droppedExpired);
    groupCommitCounter(stats, "ration.group.commit.cancelled", "Queued commands withdrawn before they were proposed: a CANCEL frame, or their connection closed", GroupCommitStats::withdrawn);
    groupCommitSeconds(stats, "ration.group.commit.queue.wait", "Total time proposed commands waited in the group-commit queue (divide by commands for the mean)", GroupCommitStats::queueWaitNanos);
    groupCommitCounter(stats, "ration.group.commit.entries.answered", "Group-commit entries answered by Raft (committed and applied, or failed)", GroupCommitStats::entriesAnswered);
    groupCommitSeconds(stats, "ration.group.commit.entry", "Total time answered entries took from proposal to answer: replication, commit, apply (divide by entries answered for the mean)", GroupCommitStats::entryNanos);
    Gauge.builder("ration.group.commit.entries.in.flight", stats, s -> s.get().entriesInFlight())
        .description("Group-commit entries proposed and not yet answered")
        .strongReference(true)
        .register(registry);
    Gauge.builder("ration.expiry.overdue", expiryOverdueMillis, m -> m.getAsLong() / 1e3)
        .description("Leader: log time minus the earliest due time in the expiry index at the last tick check, in seconds (0 if none is due)")
        .baseUnit("seconds")
        .strongReference(true)
        .register(registry);
  }

  private void groupCommitCounter(Supplier<GroupCommitStats> stats, String name, String description,
      ToLongFunction<GroupCommitStats> value) {
    // FunctionCounter holds its object weakly and has no strongReference option: keep it here.
    strongReferences.add(stats);
    FunctionCounter.builder(name, stats, s -> value.applyAsLong(s.get()))
        .description(description)
        .register(registry);
  }

  private void groupCommitSeconds(Supplier<GroupCommitStats> stats, String name, String description,
      ToLongFunction<GroupCommitStats> nanos) {
    strongReferences.add(stats);
    FunctionCounter.builder(name, stats, s -> nanos.applyAsLong(s.get()) / 1e9)
        .description(description)
        .baseUnit("seconds")
        .register(registry);
  }

  private void nodeGauge(Supplier<NodeStatus> status, String name, String description, ToLongFunction<NodeStatus> value) {
    // Strong: Micrometer holds gauge state weakly, and the supplier is referenced nowhere else.
    Gauge.builder(name, status, s -> value.applyAsLong(s.get()))
        .description(description)
        .strongReference(true)
        .register(registry);
  }

  // ---------------------------------------------------------------- storage and Ratis

  /** RocksDB properties exported, and their metric names (docs/OPERATIONS.md, "Storage"). */
  static final List<String[]> STORE_GAUGES = List.of(
      new String[] {"rocksdb.total-sst-files-size", "ration.rocksdb.sst.files.bytes", "Bytes of all SST files (RocksDB)"},
      new String[] {"rocksdb.estimate-live-data-size", "ration.rocksdb.live.data.bytes", "Estimated bytes of live data (RocksDB)"},
      new String[] {"rocksdb.cur-size-all-mem-tables", "ration.rocksdb.memtable.bytes", "Bytes in memtables (RocksDB)"},
      new String[] {"rocksdb.estimate-pending-compaction-bytes", "ration.rocksdb.pending.compaction.bytes", "Bytes compaction still has to rewrite (RocksDB); writes slow down, then stop, as it grows"},
      new String[] {"rocksdb.estimate-num-keys", "ration.rocksdb.estimated.keys", "Estimated keys (RocksDB)"},
      new String[] {"rocksdb.num-running-compactions", "ration.rocksdb.running.compactions", "Compactions running (RocksDB)"},
      new String[] {"rocksdb.is-write-stopped", "ration.rocksdb.write.stopped", "1 while RocksDB stops writes (a stall), else 0"},
      new String[] {"rocksdb.actual-delayed-write-rate", "ration.rocksdb.delayed.write.rate.bytes.per.second", "Write rate RocksDB throttles to while it delays writes, 0 when not delaying"});

  /**
   * Exports the store's RocksDB figures, read from {@code properties} (name → value; empty while
   * the state is busy or closed, then the gauges read NaN) at most once a second, however many
   * gauges a scrape reads. Also the free and total bytes of the file system of {@code dataDir}.
   */
  public void bindStore(Supplier<java.util.Map<String, Long>> properties, java.io.File dataDir) {
    StoreReading reading = new StoreReading(properties);
    strongReferences.add(reading);
    for (String[] g : STORE_GAUGES) {
      String property = g[0];
      Gauge.builder(g[1], reading, r -> r.value(property))
          .description(g[2])
          .strongReference(true)
          .register(registry);
    }
    new DiskSpaceMetrics(dataDir).bindTo(registry);
  }

  /** The last RocksDB property reading, refreshed when older than a second. */
  private static final class StoreReading {
    private final Supplier<java.util.Map<String, Long>> source;
    private java.util.Map<String, Long> last = java.util.Map.of();
    private long readAtNanos;
    private boolean read;

    StoreReading(Supplier<java.util.Map<String, Long>> source) {
      this.source = source;
    }

    synchronized double value(String property) {
      long now = System.nanoTime();
      if (!read || now - readAtNanos > TimeUnit.SECONDS.toNanos(1)) {
        last = source.get();
        readAtNanos = now;
        read = true;
      }
      Long v = last.get(property);
      return v == null ? Double.NaN : v;
    }
  }

  /** Exports Ratis's metrics of member {@code memberId} (this node's id) at each scrape. */
  public void bindRatis(String memberId) {
    registry.getPrometheusRegistry().register(new RatisMetrics(memberId));
  }

  /** Snapshots this node installed from the leader: {@code ration_snapshot_installs_total}. */
  public void bindSnapshotInstalls(LongSupplier installs) {
    strongReferences.add(installs);
    FunctionCounter.builder("ration.snapshot.installs", installs, LongSupplier::getAsLong)
        .description("Snapshots this node installed from the leader since it started")
        .register(registry);
  }

  /**
   * Terms this node ended because, as leader, it streamed the log to a removed peer:
   * {@code ration_membership_stale_stream_handoffs_total} (docs/OPERATIONS.md, "Adding a node").
   */
  public void bindStaleStreamHandoffs(LongSupplier handoffs) {
    strongReferences.add(handoffs);
    FunctionCounter.builder("ration.membership.stale.stream.handoffs", handoffs, LongSupplier::getAsLong)
        .description("Leadership handed on (or stepped down) to stop streaming to a removed peer")
        .register(registry);
  }

  /**
   * The TTL change buffer watches are answered from: {@code ration_ttl_watch_changes_held},
   * {@code ration_ttl_watch_changes_dropped_total} (dropped at the buffer's bound: a watch that
   * far behind is told "compacted") and {@code ration_ttl_watch_polls_waiting}.
   */
  public void bindTtlWatches(LongSupplier held, LongSupplier dropped, LongSupplier waiting) {
    strongReferences.add(held);
    strongReferences.add(dropped);
    strongReferences.add(waiting);
    Gauge.builder("ration.ttl.watch.changes.held", held, LongSupplier::getAsLong)
        .description("TTL changes this node holds for watches to resume from")
        .register(registry);
    FunctionCounter.builder("ration.ttl.watch.changes.dropped", dropped, LongSupplier::getAsLong)
        .description("TTL changes dropped at the buffer's bound since start")
        .register(registry);
    Gauge.builder("ration.ttl.watch.polls.waiting", waiting, LongSupplier::getAsLong)
        .description("TTL watch polls waiting at this node for a change")
        .register(registry);
  }

  /**
   * Client commands a follower handed to the leader, and those this node took from followers:
   * {@code ration_forwarded_commands_total{direction="sent"|"received"}}.
   */
  public void bindForwarding(LongSupplier sent, LongSupplier received) {
    strongReferences.add(sent);
    strongReferences.add(received);
    FunctionCounter.builder("ration.forwarded.commands", sent, LongSupplier::getAsLong)
        .description("Client commands forwarded between this node and the leader")
        .tag("direction", "sent").register(registry);
    FunctionCounter.builder("ration.forwarded.commands", received, LongSupplier::getAsLong)
        .description("Client commands forwarded between this node and the leader")
        .tag("direction", "received").register(registry);
  }

  // ---------------------------------------------------------------- per-limit gauges

  /** Replaces the per-limit series with {@code limits} (at most {@link #LIMITS_EXPORTED_MAX}). */
  public void updateLimits(List<LimitStatus> limits) {
    List<LimitStatus> shown = limits.size() > LIMITS_EXPORTED_MAX ? limits.subList(0, LIMITS_EXPORTED_MAX) : limits;
    for (LimitGauge g : limitGauges) {
      List<MultiGauge.Row<?>> rows = new ArrayList<>(shown.size());
      for (LimitStatus s : shown) {
        Tags tags = Tags.of("tenant", s.limit().tenant(), "resource", s.limit().resource());
        rows.add(MultiGauge.Row.of(tags, g.value().applyAsLong(s)));
      }
      g.gauge().register(rows, true);
    }
  }

  /**
   * Refreshes the per-limit gauges every {@code interval} from a stale (local, no ReadIndex)
   * ListLimits query on this node, on a daemon thread. A failed refresh keeps the previous
   * values and is counted.
   */
  public synchronized void startLimitRefresh(Coordinator coordinator, Duration interval) {
    if (refresher != null) {
      return;
    }
    refresher =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "ration-limit-metrics");
              t.setDaemon(true);
              return t;
            });
    long periodMillis = Math.max(100, interval.toMillis());
    refresher.scheduleWithFixedDelay(
        () -> refreshOnce(coordinator, interval), 0, periodMillis, TimeUnit.MILLISECONDS);
  }

  void refreshOnce(Coordinator coordinator, Duration timeout) {
    try {
      QueryResult r =
          coordinator
              .query(new Query.ListLimits(), true, System.nanoTime() + timeout.toNanos())
              .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (r instanceof QueryResult.LimitList l) {
        updateLimits(l.limits());
      }
      // Namespace counters from the same periodic stale read
      QueryResult n =
          coordinator
              .query(new Query.ListNamespaces(), true, System.nanoTime() + timeout.toNanos())
              .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (n instanceof QueryResult.NamespaceList list) {
        updateNamespaces(list.namespaces());
      }
      // Alerts raised (soft thresholds crossed) and quota counters
      QueryResult q =
          coordinator
              .query(new Query.Quota(new dev.ration.statemachine.query.QuotaQuery.QuotaStatus()),
                  true, System.nanoTime() + timeout.toNanos())
              .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (q instanceof QueryResult.Quota quota
          && quota.answer() instanceof dev.ration.statemachine.query.QuotaAnswer.QuotaStatusAnswer s) {
        updateQuota(s);
      }
      QueryResult t = coordinator.query(new Query.SlotTable(), true, System.nanoTime() + timeout.toNanos())
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (t instanceof QueryResult.SlotTableAnswer table) {
        updateSlots(table);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      limitRefreshFailures.increment();
      log.debug("event=limit_metrics_refresh_failed error={}", e.toString());
    }
  }

  /** The group's slots by phase (index: active, frozen, installed, absent). */
  private final java.util.concurrent.atomic.AtomicLong[] slotPhases = {
      new java.util.concurrent.atomic.AtomicLong(), new java.util.concurrent.atomic.AtomicLong(),
      new java.util.concurrent.atomic.AtomicLong(), new java.util.concurrent.atomic.AtomicLong()};
  private static final String[] SLOT_PHASES = {"active", "frozen", "installed", "absent"};
  private volatile boolean slotGaugesRegistered;

  /**
   * {@code ration_slots{phase}}: how many of the 256 tenant slots this node's group serves
   * (active), is handing over (frozen), has taken over but does not serve yet (installed) or does
   * not hold (absent). A single-group cluster serves all 256; anything frozen or installed for
   * long is a move that did not finish.
   */
  public void updateSlots(QueryResult.SlotTableAnswer t) {
    if (!slotGaugesRegistered) {
      synchronized (this) {
        if (!slotGaugesRegistered) {
          for (int i = 0; i < SLOT_PHASES.length; i++) {
            Gauge.builder("ration.slots", slotPhases[i], java.util.concurrent.atomic.AtomicLong::get)
                .tags(Tags.of("phase", SLOT_PHASES[i]))
                .description("Tenant slots of this node's group by phase (256 in all)")
                .register(registry);
          }
          slotGaugesRegistered = true;
        }
      }
    }
    slotPhases[0].set(t.active());
    slotPhases[1].set(t.frozen());
    slotPhases[2].set(t.installed());
    slotPhases[3].set(t.absent());
  }

  /** Latest replicated namespace counters, keyed "namespace|figure" (read by the meters). */
  private final ConcurrentHashMap<String, java.util.concurrent.atomic.AtomicLong> ttlFigures =
      new ConcurrentHashMap<>();

  /**
   * Exports TTL namespaces: {@code ration_ttl_evictions_total{namespace,reason}} (reason
   * expired | capacity; a FunctionCounter over the replicated, monotonic counters) and the
   * gauges {@code ration_ttl_entries} and {@code ration_ttl_bytes}. Namespaces are never
   * deleted and at most 1024 exist, so the series are bounded.
   */
  public void updateNamespaces(List<dev.ration.wire.ttl.NamespaceView> namespaces) {
    for (dev.ration.wire.ttl.NamespaceView n : namespaces) {
      ttlFigure(n.name(), "expired", n.evictedExpired(), true);
      ttlFigure(n.name(), "capacity", n.evictedCapacity(), true);
      ttlFigure(n.name(), "entries", n.entries(), false);
      ttlFigure(n.name(), "bytes", n.bytes(), false);
    }
  }

  private void ttlFigure(String namespace, String figure, long value, boolean eviction) {
    ttlFigures.computeIfAbsent(namespace + '|' + figure, k -> {
      java.util.concurrent.atomic.AtomicLong holder = new java.util.concurrent.atomic.AtomicLong();
      if (eviction) {
        io.micrometer.core.instrument.FunctionCounter.builder("ration.ttl.evictions", holder,
                java.util.concurrent.atomic.AtomicLong::get)
            .description("TTL entries removed, by namespace and reason (expired, capacity)")
            .tags("namespace", namespace, "reason", figure)
            .register(registry);
      } else {
        Gauge.builder("ration.ttl." + figure, holder, java.util.concurrent.atomic.AtomicLong::get)
            .description("TTL " + figure + " stored in the namespace (expired ones until removed)")
            .tags("namespace", namespace)
            .strongReference(true)
            .register(registry);
      }
      return holder;
    }).set(value);
  }

  // ---------------------------------------------------------------- endpoint listener

  @Override
  public void requestAnswered(String kind, ErrorCode code, String outcome, long latencyNanos) {
    requestCounters
        .computeIfAbsent(
            kind + '|' + code.name() + '|' + outcome,
            k ->
                Counter.builder("ration.requests")
                    .description("Requests answered, by kind, wire error code and domain outcome")
                    .tags("kind", kind, "code", code.name(), "outcome", outcome)
                    .register(registry))
        .increment();
    latencyTimers
        .computeIfAbsent(
            kind,
            k ->
                Timer.builder("ration.request.latency")
                    .description("Time from a request frame's arrival to its answer, by kind")
                    .tags("kind", kind)
                    .publishPercentileHistogram()
                    .register(registry))
        .record(Math.max(0, latencyNanos), TimeUnit.NANOSECONDS);
    if (code == ErrorCode.OVERLOADED) {
      overloaded.increment();
    }
  }

  @Override
  public void connectionOpened() {
    openConnections.incrementAndGet();
  }

  @Override
  public void connectionClosed() {
    openConnections.decrementAndGet();
  }

  @Override
  public void connectionRefused() {
    refused.increment();
  }

  @Override
  public synchronized void close() {
    if (refresher != null) {
      refresher.shutdownNow();
    }
    for (AutoCloseable c : closeables) {
      try {
        c.close();
      } catch (Exception e) {
        log.debug("event=metrics_binder_close_failed error={}", e.toString());
      }
    }
    registry.close();
  }

  private final java.util.concurrent.atomic.AtomicLong quotaAlerts = new java.util.concurrent.atomic.AtomicLong();
  private final java.util.concurrent.atomic.AtomicLong quotaReservations = new java.util.concurrent.atomic.AtomicLong();
  private final java.util.concurrent.atomic.AtomicLong quotaLogSequence = new java.util.concurrent.atomic.AtomicLong();
  private final java.util.concurrent.atomic.AtomicLong quotaLogFirstSequence = new java.util.concurrent.atomic.AtomicLong(1);
  private volatile boolean quotaGaugesRegistered;
  /** Budget figures by path depth (org, tenant, project): held, lapsed, unspent, overdrawn. */
  private final java.util.concurrent.atomic.AtomicLong[][] budgetFigures =
      new java.util.concurrent.atomic.AtomicLong[3][4];
  private static final String[] BUDGET_LEVELS = {"org", "tenant", "project"};
  /** Name and description of each budget gauge, in the order of a figure's fields. */
  private static final String[][] BUDGET_GAUGES = {
    {"ration.quota.budgets.held", "Budgets held, by the depth of their scope path"},
    {"ration.quota.budgets.lapsed", "Budgets whose lease lapsed unreturned (holders cut off or "
        + "gone), still counted until their window ends"},
    {"ration.quota.budgets.unspent", "Amount budgets hold granted and not reported spent"},
    {"ration.quota.budgets.overdrawn", "Amount soft budgets were overdrawn by while their "
        + "holders were cut off (budgets still kept)"}};

  /**
   * Quota figures from the replicated state (refreshed with the per-limit gauges): soft-threshold
   * alerts raised so far (one per crossing, the same count as ALERT records in the usage log),
   * outstanding reservations, and the usage log's last sequence.
   */
  public void updateQuota(dev.ration.statemachine.query.QuotaAnswer.QuotaStatusAnswer s) {
    if (!quotaGaugesRegistered) {
      synchronized (this) {
        if (!quotaGaugesRegistered) {
          // A counter: the replicated count only rises (one per crossing).
          FunctionCounter.builder("ration.quota.alerts.raised", quotaAlerts, java.util.concurrent.atomic.AtomicLong::get)
              .description("Soft-threshold alerts raised (one per crossing; ALERT records in the usage log)")
              .register(registry);
          Gauge.builder("ration.quota.reservations.outstanding", quotaReservations, java.util.concurrent.atomic.AtomicLong::get)
              .description("Outstanding reservations").register(registry);
          Gauge.builder("ration.quota.usage.log.sequence", quotaLogSequence, java.util.concurrent.atomic.AtomicLong::get)
              .description("Last sequence of the usage log").register(registry);
          Gauge.builder("ration.quota.usage.log.first.sequence", quotaLogFirstSequence, java.util.concurrent.atomic.AtomicLong::get)
              .description("First sequence the usage log still keeps (retention removes the records before it)")
              .register(registry);
          for (int d = 0; d < 3; d++) {
            for (int k = 0; k < 4; k++) {
              budgetFigures[d][k] = new java.util.concurrent.atomic.AtomicLong();
            }
            for (int k = 0; k < 4; k++) {
              Gauge.builder(BUDGET_GAUGES[k][0], budgetFigures[d][k], java.util.concurrent.atomic.AtomicLong::get)
                  .tags(Tags.of("level", BUDGET_LEVELS[d])).description(BUDGET_GAUGES[k][1])
                  .register(registry);
            }
          }
          quotaGaugesRegistered = true;
        }
      }
    }
    for (dev.ration.statemachine.query.QuotaAnswer.BudgetFigures f : s.budgets()) {
      int d = f.depth() - 1;
      if (d >= 0 && d < 3) {
        budgetFigures[d][0].set(f.held());
        budgetFigures[d][1].set(f.lapsed());
        budgetFigures[d][2].set(f.unspent());
        budgetFigures[d][3].set(f.overdrawn());
      }
    }
    quotaAlerts.set(s.alertsRaised());
    quotaReservations.set(s.reservations());
    quotaLogSequence.set(s.lastSequence());
    quotaLogFirstSequence.set(s.firstSequence());
  }

  /**
   * A refused request or authentication ({@code ration_auth_refused_total}), labelled by how
   * the caller authenticated (none, token, certificate) and the reason, both fixed sets. No
   * identity label: scraped series end up in monitoring systems read by people who may not
   * learn who the cluster's identities are; the refusal's log line names the identity.
   */
  public void authRefused(String method, String reason) {
    Counter.builder("ration.auth.refused")
        .description("Requests and connections refused UNAUTHENTICATED or PERMISSION_DENIED")
        .tags("method", method, "reason", reason)
        .register(registry)
        .increment();
  }
}
