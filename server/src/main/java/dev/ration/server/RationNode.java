package dev.ration.server;

import dev.ration.server.security.Security;

import dev.ration.server.config.ServerConfig;
import dev.ration.server.consensus.ConsensusNode;
import dev.ration.server.consensus.TtlChangeLog;
import dev.ration.server.endpoint.ClientEndpoint;
import dev.ration.server.endpoint.Translation;
import dev.ration.server.observability.AdminServer;
import dev.ration.server.observability.Readiness;
import dev.ration.server.observability.ServerMetrics;
import dev.ration.server.tls.ServerTls;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running Ration node: consensus (Ratis over RocksDB), the client endpoint and the admin
 * HTTP endpoint, wired together. The CLI's {@code server} command calls {@link #start}, registers
 * {@link #shutdown} as a JVM shutdown hook, and blocks in {@link #awaitTermination}.
 *
 * <p>Graceful shutdown (docs/OPERATIONS.md, "Graceful shutdown"), in order: stop admission (refuse new connections, answer new
 * requests UNAVAILABLE, /ready turns 503) → wait up to {@code shutdownGrace} for in-flight
 * requests, then fail the rest UNAVAILABLE → transfer leadership if this node leads → close
 * consensus (ticker, group commit, Ratis, RocksDB) → close client connections → stop admin HTTP.
 * What did not finish is logged, one line per step.
 *
 * <p>Thread-safe; {@link #shutdown} is idempotent and may be called from any thread (it blocks
 * the caller for at most about {@code shutdownGrace} plus the leadership-transfer timeout).
 */
public final class RationNode {
  private static final Logger log = LoggerFactory.getLogger(RationNode.class);

  /** How often per-limit gauges are refreshed from a stale ListLimits. */
  static final Duration LIMIT_METRICS_INTERVAL = Duration.ofSeconds(5);

  private final ServerConfig config;
  private final ConsensusNode consensus;
  private final ClientEndpoint endpoint;
  private final AdminServer admin;
  private final ServerMetrics metrics;
  private final ServerTls tls;
  private final AtomicBoolean shuttingDown = new AtomicBoolean();
  private final CountDownLatch terminated = new CountDownLatch(1);

  private RationNode(
      ServerConfig config,
      ConsensusNode consensus,
      ClientEndpoint endpoint,
      AdminServer admin,
      ServerMetrics metrics,
      ServerTls tls) {
    this.config = config;
    this.tls = tls;
    this.consensus = consensus;
    this.endpoint = endpoint;
    this.admin = admin;
    this.metrics = metrics;
  }

  /**
   * Starts consensus, then the client endpoint, then admin HTTP. If a later step fails, the
   * earlier ones are closed again before the failure is thrown.
   */
  public static RationNode start(ServerConfig config) throws Exception {
    return start(config, false);
  }

  /**
   * As above; {@code join} starts a node on an empty data directory as a newcomer waiting to be
   * added to a running cluster (`ration server --join`, docs/OPERATIONS.md "Membership").
   */
  public static RationNode start(ServerConfig config, boolean join) throws Exception {
    String nodeId = config.consensus().nodeId();
    BuildInfo build = BuildInfo.current();
    // The release and commit: during a rolling upgrade the log says which build each node runs.
    log.info("event=node_starting node={} client={} admin={} data_dir={} version={} commit={}",
        nodeId, config.clientAddress(), config.adminAddress(), config.consensus().dataDir(),
        build.version(), build.shortCommit());
    ServerTls tls = null;
    if (config.tls().on()) {
      // Before anything binds: a bad certificate must stop the node, not half-start it.
      tls = ServerTls.load(config.tls());
      log.info("event=tls_on node={} cert=\"{}\" subject=\"{}\" not_after={} ca={} client_auth={}",
          nodeId, config.tls().cert(), tls.certificate().getSubjectX500Principal().getName(),
          tls.certificate().getNotAfter().toInstant(), config.tls().ca(),
          config.tls().clientAuth().name().toLowerCase(java.util.Locale.ROOT));
    } else {
      log.warn("event=tls_off node={} source=\"{}\" message=\"INSECURE: TLS is off (tls mode insecure or no tls "
          + "section): the client, Raft and admin ports are plaintext and anyone who reaches them can read and "
          + "change the ledger or join the Raft group. For tests only.\"", nodeId, config.tls().source());
    }
    ServerMetrics metrics = new ServerMetrics();
    ConsensusNode consensus = null;
    ClientEndpoint endpoint = null;
    try {
      metrics.bindTls(tls);
      consensus = ConsensusNode.start(config.consensus(), join, tls == null ? null : tls.raftConfig());
      metrics.bindNode(consensus::status);
      metrics.bindGroupCommit(consensus::proposerStats, consensus::expiryOverdueMillis);
      metrics.bindStore(consensus::storeProperties, config.consensus().dataDir().toFile());
      metrics.bindRatis(nodeId);
      metrics.bindSnapshotInstalls(consensus::snapshotInstalls);
      metrics.bindStaleStreamHandoffs(consensus.membership()::staleStreamHandoffs);
      metrics.bindForwarding(consensus::forwardsSent, consensus::forwardsReceived);
      TtlChangeLog watched = consensus.ttlChanges();
      metrics.bindTtlWatches(watched::size, watched::dropped, watched::waiting);
      ConsensusNode c = consensus;
      if (!config.security().secure()) {
        log.warn("event=security_off node={} message=\"SECURITY MODE INSECURE: no client is"
            + " authenticated and anyone who reaches the client or admin port may do anything."
            + " Set security.mode: secure (docs/SECURITY.md) on any shared network.\"", nodeId);
      } else {
        log.info("event=security_on node={} bootstrap_admins={} open_health_endpoints={}"
                + " open_metrics={}", nodeId, config.security().bootstrapAdmins(),
            config.security().openHealthEndpoints(), config.security().openMetrics());
      }
      Security security = new Security(config.security(), c::securityTable,
          c::appliedNowMillis, metrics::authRefused, System::nanoTime);
      endpoint =
          ClientEndpoint.start(
              config.clientAddress(),
              config.endpoint(),
              consensus,
              new Translation(config.consensus().stateOptions().maxNameBytes()),
              metrics,
              tls == null ? null : tls.clientPortContext(),
              security);
      ClientEndpoint ep = endpoint;
      AdminServer admin =
          AdminServer.start(
              config.adminAddress(),
              consensus::status,
              metrics,
              ep::draining,
              new Readiness(Readiness.DEFAULT_MAX_APPLY_LAG_ENTRIES),
              consensus::transferLeadershipTo,
              consensus.membership(),
              consensus::prepareBackup,
              tls == null ? null : tls.adminContext());
      if (tls != null) {
        tls.startReloading();
      }
      admin.guard(new dev.ration.server.security.AdminAccess(security));
      metrics.startLimitRefresh(consensus, LIMIT_METRICS_INTERVAL);
      log.info("event=node_started node={} client={} admin={}",
          nodeId, endpoint.localAddress(), admin.localAddress());
      return new RationNode(config, consensus, endpoint, admin, metrics, tls);
    } catch (Exception | Error e) {
      log.error("event=node_start_failed node={} error={}", nodeId, e.toString());
      if (endpoint != null) {
        endpoint.close();
      }
      if (consensus != null) {
        try {
          consensus.close();
        } catch (RuntimeException closing) {
          e.addSuppressed(closing);
        }
      }
      metrics.close();
      if (tls != null) {
        tls.close();
      }
      throw e;
    }
  }

  public ClientEndpoint endpoint() {
    return endpoint;
  }

  public AdminServer admin() {
    return admin;
  }

  public ConsensusNode consensus() {
    return consensus;
  }

  public ServerMetrics metrics() {
    return metrics;
  }

  /** The node's certificates, or null when it runs insecure. */
  public ServerTls tls() {
    return tls;
  }

  /** Graceful shutdown; idempotent. Returns when the node has stopped. */
  public void shutdown() {
    if (!shuttingDown.compareAndSet(false, true)) {
      return;
    }
    String nodeId = config.consensus().nodeId();
    long startNanos = System.nanoTime();
    List<String> unfinished = new ArrayList<>();
    try {
      log.info("event=shutdown_started node={} in_flight={} connections={} grace_ms={}",
          nodeId, endpoint.inFlight(), endpoint.openConnections(), config.shutdownGrace().toMillis());
      endpoint.stopAccepting();

      boolean idle = false;
      try {
        idle = endpoint.awaitInFlight(config.shutdownGrace());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (!idle) {
        int failed = endpoint.failInFlight("node " + nodeId + " is shutting down");
        unfinished.add(failed + " in-flight requests failed UNAVAILABLE");
        log.warn("event=shutdown_in_flight_failed node={} count={}", nodeId, failed);
      }

      // A single-node group has no one to hand leadership to.
      if (consensus.isLeader() && consensus.members().voters().size() > 1) {
        Duration transfer = config.consensus().electionTimeoutMax().multipliedBy(2);
        log.info("event=leadership_transfer_started node={} timeout_ms={}", nodeId, transfer.toMillis());
        consensus.transferLeadership(transfer);
        // Still the leader after the transfer's timeout: say so, then stop anyway.
        if (consensus.isLeader()) {
          unfinished.add("leadership was not transferred");
          log.warn("event=leadership_transfer_failed node={}", nodeId);
        } else {
          log.info("event=leadership_transferred node={} leader={}", nodeId, consensus.status().leaderId());
        }
      }

      try {
        consensus.close();
        log.info("event=consensus_closed node={}", nodeId);
      } catch (RuntimeException e) {
        unfinished.add("consensus did not close cleanly: " + e);
        log.error("event=consensus_close_failed node={} error={}", nodeId, e.toString(), e);
      }

      endpoint.close();
      admin.close();
      metrics.close();
      if (tls != null) {
        tls.close();
      }
    } finally {
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
      if (unfinished.isEmpty()) {
        log.info("event=shutdown_complete node={} duration_ms={} unfinished=none", nodeId, millis);
      } else {
        log.warn("event=shutdown_complete node={} duration_ms={} unfinished=\"{}\"",
            nodeId, millis, String.join("; ", unfinished));
      }
      terminated.countDown();
    }
  }

  /**
   * Stops the node abruptly, as a kill would look to the rest of the cluster: no draining, no
   * leadership transfer; in-flight requests see their connection close. For fault tests and
   * drills (a real crash also loses what RocksDB had not synced, which this does not).
   */
  public void abort() {
    if (!shuttingDown.compareAndSet(false, true)) {
      return;
    }
    String nodeId = config.consensus().nodeId();
    log.warn("event=abort node={} in_flight={}", nodeId, endpoint.inFlight());
    try {
      endpoint.stopAccepting();
      try {
        consensus.close();
      } catch (RuntimeException e) {
        log.error("event=consensus_close_failed node={} error={}", nodeId, e.toString(), e);
      }
      endpoint.close();
      admin.close();
      metrics.close();
      if (tls != null) {
        tls.close();
      }
    } finally {
      terminated.countDown();
    }
  }

  /** Blocks until {@link #shutdown} has finished. */
  public void awaitTermination() throws InterruptedException {
    terminated.await();
  }

  /** Waits at most {@code timeout}; true if the node has stopped. */
  public boolean awaitTermination(Duration timeout) throws InterruptedException {
    return terminated.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }
}
