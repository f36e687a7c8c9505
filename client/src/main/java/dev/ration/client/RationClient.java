package dev.ration.client;

import dev.ration.client.internal.RateLimitedLog;
import dev.ration.client.limiter.LeaseInfo;
import dev.ration.client.limiter.LimitInfo;
import dev.ration.client.limiter.internal.LimiterViews;

import dev.ration.wire.ErrorCode;
import dev.ration.protocol.Kind;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.client.time.LedgerTime;
import dev.ration.client.time.MonotonicClock;
import dev.ration.client.tls.ClientTls;
import dev.ration.protocol.tls.ClientTlsFiles;
import dev.ration.protocol.tls.PemException;
import dev.ration.client.transport.RawClient;
import dev.ration.wire.Outcome;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Java client of a Ration cluster, and the single owner of retries.
 *
 * <p>One connection at a time, to the node believed to lead: a NOT_LEADER reply naming the
 * leader moves the client there; with no leader known (NOT_LEADER without address, UNAVAILABLE,
 * a lost or refused connection) it rotates through the configured addresses with backoff. A
 * call is retried at most {@code maxRetries} times within its deadline after a lost connection
 * or OVERLOADED; after NOT_LEADER (a member answered, the cluster is electing or names its
 * leader) it keeps searching until the deadline, at least 50 ms apart, always under the SAME
 * request id, so the server's idempotency (client id, request id) answers a resent mutation with
 * its first result. Request ids come from one per-client counter starting at 1 (HELLO frames
 * take ids from it too), so they are unique across connections.
 *
 * <p>Failures are {@link RationException}s; a failure is indeterminate when any attempt of a
 * mutation may have reached a server. Reads fail definitely: they have no effect.
 *
 * <p>Its typed methods take and return values of this library ({@link LimitSpec}, {@link
 * LeaseResult}, ...), never the wire's records, so a protocol change does not break callers.
 * The limiter, quota and TTL clients it hands out reach it through an internal transport.
 *
 * <p>Thread-safe. Uses one daemon event-loop thread, released by {@link #close()}.
 */
public final class RationClient implements AutoCloseable {
  static {
    RawClient.install(c -> {
      if (c instanceof RationClient rc) {
        return rc.raw;
      }
      throw new IllegalArgumentException("not a RationClient: " + c);
    });
  }

  private static final Logger LOG = LoggerFactory.getLogger(RationClient.class);
  /** Connection changes are logged at most this often; the next line counts those left out. */
  private static final long RECONNECT_LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
  private final RationClientOptions options;
  /** Every deadline and timer of this client is judged by it (the options' clock). */
  private final MonotonicClock clock;
  /** The TLS context of every connection, or null for plaintext. */
  private final SslContext ssl;
  /** The TLS files in use, checked for changes every reload interval; null without TLS. */
  private final ClientTlsFiles tlsFiles;
  private final EventLoopGroup group;
  private final Backoff backoff;
  private final RequestIds requestIds;
  private final List<String> addresses;
  private final Raw raw = new Raw();
  /**
   * The limiters' and slot sources' renewals go through this, so that renewals falling due
   * together travel in one frame (RENEW_LEASES, RENEW_SLOTS), each still answered on its own.
   */
  private final dev.ration.client.transport.RenewalCoalescer renewals;
  // One of each per client, so that a listener (metrics) sees every call made through it.
  private final dev.ration.client.ttl.TtlEntries ttl;
  private final dev.ration.client.quota.QuotaClient quotas;

  // Guarded by this.
  private int addressIndex;
  private String currentAddress;
  private CompletableFuture<Connection> current;
  /** Leader addresses a follower named that could not be connected to, until when (nanoTime). */
  private final java.util.Map<String, Long> unreachableUntilNanos = new java.util.HashMap<>();
  private boolean closed;
  /** How long a leader address that refused this client is passed over for a follower's. */
  private static final long UNREACHABLE_LEADER_NANOS = TimeUnit.SECONDS.toNanos(30);
  private final RateLimitedLog reconnectLog;

  /**
   * A client; it connects on its first call.
   *
   * @param options addresses, deadlines, retries and identity
   */
  public RationClient(RationClientOptions options) {
    this(options, LOG);
  }

  /** As the public constructor, logging moves between servers to {@code reconnectLogger}. */
  RationClient(RationClientOptions options, Logger reconnectLogger) {
    this.reconnectLog = new RateLimitedLog(reconnectLogger, RateLimitedLog.Level.WARN, RECONNECT_LOG_INTERVAL_NANOS);
    this.options = options.withMintedClientId();
    this.clock = options.clock();
    this.ttl = dev.ration.client.ttl.internal.TtlAccess.entries(raw, clock);
    this.quotas = dev.ration.client.quota.internal.QuotaAccess.client(raw, clock);
    // The caller's options, not the minted ones: whether the id was fixed decides the scheme.
    this.requestIds = RequestIds.forOptions(options, RequestIds::wallClockMicros);
    this.addresses = options.addresses();
    this.currentAddress = addresses.get(0);
    // Built once: reading the PEM files per connection would cost a file read per reconnect,
    // and a bad file should fail here, at construction, not on the first call.
    this.tlsFiles = options.tls() == null ? null : loadTls(options.tls());
    this.ssl = tlsFiles == null ? null : tlsFiles.sslContext();
    this.group =
        new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("ration-client", true), NioIoHandler.newFactory());
    if (tlsFiles != null && !options.tls().reloadInterval().isZero()) {
      // The files are small; checking them on the I/O thread every interval costs a few reads.
      long every = Math.max(1, options.tls().reloadInterval().toMillis());
      group.scheduleWithFixedDelay(this::reloadTls, every, every, TimeUnit.MILLISECONDS);
    }
    this.backoff =
        new Backoff(
            options.backoffBase().toMillis(),
            options.backoffMax().toMillis(),
            bound -> ThreadLocalRandom.current().nextLong(bound + 1));
    this.renewals = new dev.ration.client.transport.RenewalCoalescer(raw,
        RENEWAL_FRAMES_IN_FLIGHT, RENEWAL_RETENTION, clock::nanoTime);
  }

  private static ClientTlsFiles loadTls(ClientTls tls) {
    try {
      return ClientTlsFiles.load(tls.caFile(), tls.certFile(), tls.keyFile());
    } catch (PemException e) {
      throw new IllegalArgumentException("TLS: " + e.getMessage(), e);
    }
  }

  private void reloadTls() {
    try {
      if (tlsFiles.reloadIfChanged()) {
        LOG.info("event=client_tls_reloaded ca_certificates={} cert_subject=\"{}\"",
            tlsFiles.trusted().size(),
            tlsFiles.presented().map(c -> c.getSubjectX500Principal().getName()).orElse(""));
      }
    } catch (PemException e) {
      // A copy half done, a new certificate next to the old key: keep what works, try again.
      LOG.warn("event=client_tls_reload_failed keeping=current problem=\"{}\"", e.getMessage());
    } catch (RuntimeException e) {
      LOG.warn("event=client_tls_reload_failed keeping=current error=\"{}\"", e.toString());
    }
  }

  /**
   * The client certificate this client presents on its next connection: the one in its
   * certificate file as of the last reload ({@link ClientTls#reloadInterval()}).
   *
   * @return the certificate, or empty without TLS or without a client certificate
   */
  public Optional<X509Certificate> presentedCertificate() {
    return tlsFiles == null ? Optional.empty() : tlsFiles.presented();
  }

  /**
   * The CA certificates this client trusts on its next connection, as of the last reload.
   *
   * @return the certificates, empty without TLS
   */
  public List<X509Certificate> trustedCertificates() {
    return tlsFiles == null ? List.of() : tlsFiles.trusted();
  }

  /**
   * Renewal frames of one family a client's limiters and slot sources have outstanding before
   * further renewals wait to share the next frame: one, as Nagle's algorithm, so a lone renewal
   * goes out at once and renewals falling due together share a frame per round trip.
   */
  private static final int RENEWAL_FRAMES_IN_FLIGHT = 1;
  /** How long a renewal's frame stays resendable; holders resend within their lease duration. */
  private static final Duration RENEWAL_RETENTION = Duration.ofMinutes(10);

  /**
   * A client of the cluster at {@code addresses}, with default options.
   *
   * @param addresses host:port of the nodes' client endpoints
   * @return the client
   */
  public static RationClient connect(String... addresses) {
    return new RationClient(RationClientOptions.builder().addresses(List.of(addresses)).build());
  }

  /**
   * The options in force, with the client id this client minted if none was given.
   *
   * @return the options
   */
  public RationClientOptions options() {
    return options;
  }

  /**
   * The next request id of this client, never reused for a different request: 1, 2, 3, ... under
   * a random client id; under a fixed one, ids that follow the wall clock so a restarted
   * process does not reuse its predecessor's (docs/PROTOCOL.md, "Request ids").
   *
   * @return a fresh request id
   */
  public long nextRequestId() {
    return requestIds.next();
  }

  /**
   * The address the client currently talks to (the leader, as far as it knows).
   *
   * @return host:port
   */
  public synchronized String currentAddress() {
    return currentAddress;
  }

  // ------------------------------------------------------------------ typed API

  /**
   * As {@link #setLimit}, without waiting.
   *
   * @param spec the limit and its compare-and-set guard
   * @return the ledger's answer
   */
  public CompletableFuture<SetLimitResult> setLimitAsync(LimitSpec spec) {
    return typed(call(spec.toRequest()), Response.SetLimitReply.class)
        .thenApply(r -> new SetLimitResult(r.outcome(), r.message(), r.currentVersion(),
            Optional.ofNullable(r.limit()).map(LimiterViews::limit)));
  }

  /**
   * Creates or replaces a limit (compare-and-set on {@link LimitSpec#expectedVersion()}).
   *
   * @param spec the limit and its compare-and-set guard
   * @return the limit as now configured, or why it was refused
   * @throws RationException if no answer came back
   */
  public SetLimitResult setLimit(LimitSpec spec) {
    return join(setLimitAsync(spec));
  }

  /**
   * As {@link #getLimit}, without waiting.
   *
   * @param tenant the tenant
   * @param resource the resource
   * @return the limit and its figures, or empty
   */
  public CompletableFuture<Optional<LimitInfo>> getLimitAsync(String tenant, String resource) {
    return typed(call(new Request.GetLimit(tenant, resource, false)), Response.GetLimitReply.class)
        .thenApply(r -> r.found() ? Optional.ofNullable(r.limit()).map(LimiterViews::limit) : Optional.empty());
  }

  /**
   * The limit on (tenant, resource) and how much of it is leased (a linearizable read).
   *
   * @param tenant the tenant
   * @param resource the resource
   * @return the limit and its figures, or empty when there is none
   */
  public Optional<LimitInfo> getLimit(String tenant, String resource) {
    return join(getLimitAsync(tenant, resource));
  }

  /**
   * As {@link #listLimits}, without waiting.
   *
   * @return every limit
   */
  public CompletableFuture<List<LimitInfo>> listLimitsAsync() {
    return typed(call(new Request.ListLimits(false)), Response.LimitList.class)
        .thenApply(r -> r.limits().stream().map(LimiterViews::limit).toList());
  }

  /**
   * Every limit of the cluster with its figures.
   *
   * @return every limit
   */
  public List<LimitInfo> listLimits() {
    return join(listLimitsAsync());
  }

  /**
   * As {@link #acquireLease}, without waiting.
   *
   * @param tenant the tenant
   * @param resource the resource
   * @param holder who holds the lease (a process or region)
   * @param demandRatePerSecond the rate the holder would like
   * @param demandBurst the burst the holder would like
   * @return the ledger's answer
   */
  public CompletableFuture<LeaseResult> acquireLeaseAsync(
      String tenant, String resource, String holder, long demandRatePerSecond, long demandBurst) {
    return typed(
        call(new Request.AcquireLease(tenant, resource, holder, demandRatePerSecond, demandBurst)),
        Response.LeaseReply.class).thenApply(RationClient::lease);
  }

  /**
   * Asks for a lease on (tenant, resource): a share of its rate and burst that {@code holder}
   * may admit locally until the lease expires. A {@code RateLimiter} does this (and renews) for
   * you; this is the call underneath.
   *
   * @param tenant the tenant
   * @param resource the resource
   * @param holder who holds the lease (a process or region)
   * @param demandRatePerSecond the rate the holder would like
   * @param demandBurst the burst the holder would like
   * @return the granted lease, or why it was refused
   */
  public LeaseResult acquireLease(
      String tenant, String resource, String holder, long demandRatePerSecond, long demandBurst) {
    return join(acquireLeaseAsync(tenant, resource, holder, demandRatePerSecond, demandBurst));
  }

  /**
   * As {@link #renewLease}, without waiting.
   *
   * @param report the lease presented and the holder's report
   * @return the ledger's answer
   */
  public CompletableFuture<LeaseResult> renewLeaseAsync(RenewalReport report) {
    // Its own RENEW_LEASE frame, not the limiters' coalescer: with many callers the leader's
    // group commit already puts their renewals in one Raft entry, and client-side frames cost
    // throughput (docs/benchmarks.md, "Renewals that batch themselves").
    return typed(call(renewal(report)), Response.LeaseReply.class).thenApply(RationClient::lease);
  }

  /**
   * Renews a lease presenting its current version, with the holder's demand and usage report.
   *
   * @param report the lease presented and the holder's report
   * @return the new lease version, or why it was refused
   */
  public LeaseResult renewLease(RenewalReport report) {
    return join(renewLeaseAsync(report));
  }

  /**
   * Renews several leases in one frame (at most {@link #MAX_RENEWALS}), each judged and
   * answered on its own: the answers follow {@code reports} in order, each as {@link
   * #renewLeaseAsync} would give it. One request id covers the batch, so a retry after a lost
   * reply is answered from the first attempt. A refusal of the whole frame fails the future
   * with an {@link IllegalStateException} naming the outcome.
   *
   * @param reports the renewals, 1 to {@link #MAX_RENEWALS}
   * @return one answer per renewal
   */
  public CompletableFuture<List<LeaseResult>> renewLeasesAsync(List<RenewalReport> reports) {
    return typed(call(new Request.RenewLeases(reports.stream().map(RationClient::renewal).toList())),
        Response.RenewalsReply.class).thenApply(r -> {
          if (r.outcome() != Outcome.SUCCESS) {
            throw new IllegalStateException("renewal batch refused: " + r.outcome() + " " + r.message());
          }
          return r.replies().stream().map(RationClient::lease).toList();
        });
  }

  /**
   * As {@link #renewLeasesAsync}, waiting for the answer.
   *
   * @param reports the renewals, 1 to {@link #MAX_RENEWALS}
   * @return one answer per renewal
   */
  public List<LeaseResult> renewLeases(List<RenewalReport> reports) {
    return join(renewLeasesAsync(reports));
  }

  /** The most renewals {@link #renewLeasesAsync} sends in one frame. */
  public static final int MAX_RENEWALS = Request.RenewLeases.MAX_RENEWALS;

  /**
   * As {@link #returnLease}, without waiting.
   *
   * @param leaseId the lease
   * @param presentedVersion the version the holder has
   * @param unusedBalance whole tokens the holder did not spend
   * @return the ledger's answer
   */
  public CompletableFuture<ReturnResult> returnLeaseAsync(long leaseId, long presentedVersion, long unusedBalance) {
    return typed(call(new Request.ReturnLease(leaseId, presentedVersion, unusedBalance)), Response.ReturnReply.class)
        .thenApply(r -> new ReturnResult(r.outcome(), r.message(), r.leaseId(), r.credited(), r.alreadyGone()));
  }

  /**
   * Hands a lease back with its unused whole tokens, which later acquires may start with.
   *
   * @param leaseId the lease
   * @param presentedVersion the version the holder has
   * @param unusedBalance whole tokens the holder did not spend
   * @return what was credited, or why the return was refused
   */
  public ReturnResult returnLease(long leaseId, long presentedVersion, long unusedBalance) {
    return join(returnLeaseAsync(leaseId, presentedVersion, unusedBalance));
  }

  /**
   * As {@link #listLeases}, without waiting.
   *
   * @param tenant the tenant, "" for all
   * @param resource the resource, "" for all
   * @return the leases
   */
  public CompletableFuture<List<LeaseInfo>> listLeasesAsync(String tenant, String resource) {
    return typed(call(new Request.ListLeases(tenant, resource, false)), Response.LeaseList.class)
        .thenApply(r -> r.leases().stream().map(LimiterViews::lease).toList());
  }

  /**
   * The live leases on (tenant, resource); empty tenant and resource list every lease.
   *
   * @param tenant the tenant, "" for all
   * @param resource the resource, "" for all
   * @return the leases
   */
  public List<LeaseInfo> listLeases(String tenant, String resource) {
    return join(listLeasesAsync(tenant, resource));
  }

  /**
   * As {@link #clusterStatus()}, without waiting.
   *
   * @return the status
   */
  public CompletableFuture<ClusterStatus> clusterStatusAsync() {
    return typed(call(new Request.ClusterStatus()), Response.ClusterStatusReply.class)
        .thenApply(RationClient::status);
  }

  /**
   * Status of the node this client is connected to (whatever its role).
   *
   * @return the status
   */
  public ClusterStatus clusterStatus() {
    return join(clusterStatusAsync());
  }

  /**
   * As {@link #clusterStatus(String)}, without waiting.
   *
   * @param address host:port of the node's client endpoint
   * @return the status
   */
  public CompletableFuture<ClusterStatus> clusterStatusAsync(String address) {
    return statusOf(address).thenApply(RationClient::status);
  }

  /**
   * Status of the node at {@code address}, over a dedicated connection closed afterwards. Not
   * retried elsewhere: the caller asked for that node.
   *
   * @param address host:port of the node's client endpoint
   * @return the status
   */
  public ClusterStatus clusterStatus(String address) {
    return join(clusterStatusAsync(address));
  }

  private CompletableFuture<Response.ClusterStatusReply> statusOf(String address) {
    long helloId = nextRequestId();
    long id = nextRequestId();
    int timeoutMillis = (int) Math.min(Integer.MAX_VALUE, options.requestDeadline().toMillis());
    CompletableFuture<Response> reply =
        Connection.open(group, address, options, ssl, helloId)
            .thenCompose(c -> c.send(id, new Request.ClusterStatus(), timeoutMillis).whenComplete((r, e) -> c.close()));
    CompletableFuture<Response> mapped =
        reply.handle(
            (r, err) -> {
              if (err != null) {
                AttemptFailure f = attemptFailure(err);
                throw RationException.of(f.code, f.getMessage(), true, 0, f);
              }
              if (r instanceof Response.Error e) {
                throw RationException.of(e.code(), e.message(), true, e.retryAfterMillis(), null);
              }
              return r;
            });
    return typed(mapped, Response.ClusterStatusReply.class);
  }

  private static Request.RenewLease renewal(RenewalReport r) {
    return new Request.RenewLease(r.leaseId(), r.presentedVersion(), r.demandRatePerSecond(),
        r.demandBurst(), r.admittedPerSecond(), r.rejectedPerSecond(), r.emergencyUsed());
  }

  private static LeaseResult lease(Response.LeaseReply r) {
    return new LeaseResult(r.outcome(), r.message(), Duration.ofMillis(Math.max(0, r.retryAfterMillis())),
        r.currentVersion(), Optional.ofNullable(r.lease()).map(LimiterViews::lease), r.startBalance());
  }

  private static ClusterStatus status(Response.ClusterStatusReply r) {
    return new ClusterStatus(r.serverId(), r.role(), r.term(), r.commitIndex(), r.appliedIndex(),
        r.leaderId(), r.leaderAddress(), LedgerTime.ofMillis(Math.max(0, r.ledgerNowMillis())), r.epoch(),
        r.peers().stream().map(p -> new ClusterStatus.Peer(p.id(), p.raftAddress(), p.clientAddress(), p.role()))
            .toList());
  }

  // ------------------------------------------------------------------ regional limiter

  /**
   * A slot source for a {@link dev.ration.client.pool.WorkerPool}: a lease on a share of the
   * concurrency cap of ({@code tenant}, {@code resource}), renewed in the background, so pools
   * in many processes together run at most the cap (docs/POOL.md, "The global cap"). Returns at
   * once; its permits are 0 until the lease is granted. Close it when the pool shuts down.
   *
   * @param tenant the limit's tenant
   * @param resource the limit's resource
   * @param holder this pool's holder name (one per process or pool)
   * @param maxSlots the pool's worker count W: the most slots it asks for
   * @return the slot source, acquiring in the background
   */
  public dev.ration.client.slots.LeasedSlots leasedSlots(String tenant, String resource, String holder,
      int maxSlots) {
    return leasedSlots(tenant, resource, holder, maxSlots, java.time.Clock.systemUTC());
  }

  /**
   * As {@link #leasedSlots(String, String, String, int)}, timing the lease on {@code clock} (the
   * pool's clock, {@code PoolOptions}).
   *
   * @param tenant the limit's tenant
   * @param resource the limit's resource
   * @param holder this pool's holder name (one per process or pool)
   * @param maxSlots the pool's worker count W: the most slots it asks for
   * @param clock the clock that times the lease locally
   * @return the slot source, acquiring in the background
   */
  public dev.ration.client.slots.LeasedSlots leasedSlots(String tenant, String resource, String holder,
      int maxSlots, java.time.Clock clock) {
    return dev.ration.client.slots.internal.SlotsAccess.start(
        new dev.ration.client.slots.internal.LimitSlotLedger(renewals, tenant, resource, holder),
        maxSlots, clock);
  }

  /**
   * A slot source for a {@link dev.ration.client.pool.WorkerPool} on the CONCURRENT quotas of a
   * scope path: a slot budget counted at every level of {@code scope} at once (project, tenant,
   * organisation), renewed in the background with the pool's demand and the attempts it
   * started (billed as usage), so the pools of every process together never run more than any
   * level allows (docs/QUOTAS.md, "Concurrent quotas: slot budgets"). Returns at once; its
   * permits are 0 until the budget is granted. Close it when the pool shuts down.
   *
   * @param holder this pool's holder name (one per process or pool)
   * @param scope the scope path
   * @param resource the resource, with a CONCURRENT quota at one level of the path or more
   * @param maxSlots the pool's worker count W: the most slots it asks for
   * @param lease how long each grant and renewal holds (1 s to 10 min; renewed every quarter)
   * @return the slot source, acquiring in the background
   */
  public dev.ration.client.slots.LeasedSlots quotaSlots(String holder, String scope,
      String resource, int maxSlots, java.time.Duration lease) {
    return dev.ration.client.slots.internal.SlotsAccess.start(
        new dev.ration.client.slots.internal.QuotaSlotLedger(quotas, holder, scope, resource, lease),
        maxSlots, java.time.Clock.systemUTC());
  }

  /**
   * A limiter admitting locally under a lease on (tenant, resource) held by {@code holder},
   * with default options; its lifecycle runs on this client's event loop. Nothing is sent until
   * its first use. See docs/LIMITER.md.
   *
   * @param tenant the tenant
   * @param resource the resource
   * @param holder who holds the lease (this process or region)
   * @return the limiter; close it to hand the lease back
   */
  public dev.ration.client.limiter.RateLimiter rateLimiter(String tenant, String resource, String holder) {
    return rateLimiter(tenant, resource, holder, dev.ration.client.limiter.LimiterOptions.defaults());
  }

  /**
   * As {@link #rateLimiter(String, String, String)} with explicit options (clock, scheduler, demand...).
   *
   * @param tenant the tenant
   * @param resource the resource
   * @param holder who holds the lease (this process or region)
   * @param limiterOptions the limiter's options
   * @return the limiter; close it to hand the lease back
   */
  public dev.ration.client.limiter.RateLimiter rateLimiter(
      String tenant, String resource, String holder, dev.ration.client.limiter.LimiterOptions limiterOptions) {
    dev.ration.client.limiter.LimiterScheduler scheduler =
        limiterOptions.scheduler().orElseGet(() -> dev.ration.client.limiter.LimiterScheduler.of(group));
    return dev.ration.client.limiter.internal.Limiters.create(
        dev.ration.client.limiter.internal.LeaseTransport.of(renewals), scheduler, clock, tenant,
        resource, holder, limiterOptions);
  }

  /**
   * A quota limiter for {@code holder}: quota checks for any scope path and resource decided
   * locally from budgets this process holds, which it takes, renews in one request per round
   * and returns itself (docs/QUOTAS.md, "Budgets and the quota limiter"). Nothing is sent until
   * a pair is first checked.
   *
   * @param holder who holds the budgets (this process or region)
   * @return the limiter; close it to return its budgets
   */
  public dev.ration.client.quota.QuotaLimiter quotaLimiter(String holder) {
    return quotaLimiter(holder, dev.ration.client.quota.QuotaLimiterOptions.defaults());
  }

  /**
   * As {@link #quotaLimiter(String)} with explicit options.
   *
   * @param holder who holds the budgets
   * @param limiterOptions the limiter's options
   * @return the limiter; close it to return its budgets
   */
  public dev.ration.client.quota.QuotaLimiter quotaLimiter(String holder,
      dev.ration.client.quota.QuotaLimiterOptions limiterOptions) {
    dev.ration.client.limiter.LimiterScheduler scheduler =
        limiterOptions.scheduler().orElseGet(() -> dev.ration.client.limiter.LimiterScheduler.of(group));
    return dev.ration.client.quota.internal.QuotaAccess.limiter(quotas, scheduler, clock::nanoTime,
        holder, limiterOptions);
  }

  /**
   * TTL entries and locks (docs/TTL.md), through this client's connection and retries; the
   * same object on every call.
   *
   * @return the TTL entries
   */
  public dev.ration.client.ttl.TtlEntries ttl() {
    return ttl;
  }

  /**
   * Quotas and reservations (try-with-resources) over this client; the same object on every
   * call.
   *
   * @return the quota client
   */
  public dev.ration.client.quota.QuotaClient quotas() {
    return quotas;
  }

  // ------------------------------------------------------------------ low-level API

  /** The wire-level transport: not public, reached by tools through {@link RawClient#of}. */
  private final class Raw implements RawClient {
    @Override
    public long nextRequestId() {
      return RationClient.this.nextRequestId();
    }

    @Override
    public CompletableFuture<Response> call(Request request) {
      return RationClient.this.call(request);
    }

    @Override
    public <T extends Response> CompletableFuture<T> call(Request request, Class<T> replyType) {
      return typed(RationClient.this.call(request), replyType);
    }

    @Override
    public <T extends Response> CompletableFuture<T> call(long requestId, Request request, Class<T> replyType) {
      return typed(RationClient.this.call(requestId, request, options.requestDeadline()), replyType);
    }

    @Override
    public CompletableFuture<Response> call(Request request, Duration deadline) {
      return RationClient.this.call(nextRequestId(), request, deadline);
    }

    @Override
    public CompletableFuture<Response> call(long requestId, Request request, Duration deadline) {
      return RationClient.this.call(requestId, request, deadline);
    }

    @Override
    public CompletableFuture<Response.ClusterStatusReply> clusterStatus(String address) {
      return statusOf(address);
    }
  }

  /** Sends {@code request} under a fresh request id with the default deadline. */
  private CompletableFuture<Response> call(Request request) {
    return call(nextRequestId(), request, options.requestDeadline());
  }

  /**
   * Sends {@code request} under an explicit request id. Completes with the reply (never a
   * {@link Response.Error}) or fails with a {@link RationException}.
   */
  private CompletableFuture<Response> call(long requestId, Request request, Duration deadline) {
    Call c = new Call(requestId, request, clock.nanoTime() + deadline.toNanos());
    c.attempt();
    return c.result;
  }

  // ------------------------------------------------------------------ retry loop

  /** The least pause between two resends while the cluster elects a leader. */
  static final long ELECTION_POLL_MILLIS = 50;

  /** One logical call: its attempts share the request id and the deadline. */
  private final class Call {
    final long requestId;
    final Request request;
    final long deadlineNanos;
    final boolean mutation;
    final CompletableFuture<Response> result = new CompletableFuture<>();
    int retries;
    /** Resends after a NOT_LEADER: bounded by the deadline alone (see retryOrFail). */
    int electionRetries;
    boolean mayHaveApplied;
    /** The NOT_LEADER message the pending resend answers, or null when it follows anything else. */
    String lastNotLeader;
    /** The failure the pending resend retries, when it has one (a lost or refused connection). */
    Throwable lastRetried;
    /** The connection the latest attempt was written to, for a CANCEL if the caller gives up. */
    volatile Connection sentOn;

    Call(long requestId, Request request, long deadlineNanos) {
      this.requestId = requestId;
      this.request = request;
      this.deadlineNanos = deadlineNanos;
      this.mutation = request.kind().mutation();
      result.whenComplete((r, e) -> {
        if (result.isCancelled()) {
          withdraw();
        }
      });
    }

    /**
     * The caller cancelled the future: no more attempts, and the server is asked to withdraw
     * the request if it is still queued there (best effort; the caller was told "cancelled",
     * so for a mutation whether it applied stays unknown, as for any abandoned call).
     */
    private void withdraw() {
      Connection c = sentOn;
      if (c != null) {
        c.send(nextRequestId(), new Request.Cancel(requestId), (int) options.requestDeadline().toMillis());
      }
    }

    void attempt() {
      if (result.isDone()) {
        return;
      }
      long remainingMillis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - clock.nanoTime());
      if (remainingMillis <= 0) {
        if (lastNotLeader != null && !(mutation && mayHaveApplied)) {
          // The resend waited out an election and its timer fired after the deadline: what the
          // caller learned is a member's definite NOT_LEADER, not a lost request. (A mutation an
          // earlier attempt may have applied stays DEADLINE_EXCEEDED: its outcome is unknown.)
          fail(ErrorCode.NOT_LEADER, lastNotLeader + " (no leader found within the deadline, after "
              + (retries + electionRetries) + " attempts)", 0, null);
        } else {
          // The resend's timer fired after the deadline: the failure it was to retry is the
          // cause (a refused connection, say, which callers report as "cannot reach").
          fail(ErrorCode.DEADLINE_EXCEEDED, "deadline passed before attempt "
              + (retries + electionRetries + 1)
              + (lastRetried == null ? "" : ", after " + lastRetried.getMessage()), 0, lastRetried);
        }
        return;
      }
      lastNotLeader = null;
      lastRetried = null;
      CompletableFuture<Connection> conn = connection();
      conn.whenComplete(
          (c, connectError) -> {
            if (connectError != null) {
              AttemptFailure f = attemptFailure(connectError);
              connectionFailed(conn);
              if (f.code == ErrorCode.UNAUTHENTICATED) {
                // A refused certificate or token will be refused again: fail now, definitely
                // (nothing was sent).
                fail(f.code, f.getMessage(), 0, f);
              } else if (electionRetries > 0) {
                // A member answered NOT_LEADER during this call: the cluster is up and electing,
                // and the address that failed is the dead leader a follower still names. Part
                // of the election wait, bounded by the deadline, not by maxRetries.
                waitOutElection(f.getMessage(), 0, false, false);
              } else {
                retryOrFail(f.code, f.getMessage(), 0, f);
              }
              return;
            }
            // The reply timeout is a timer of the connection's event loop: what is left of the
            // deadline by the client's clock, waited out in real time.
            int timeoutMillis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, remainingMillis));
            CompletableFuture<Response> sent = c.send(requestId, request, timeoutMillis);
            // Set after send: a CANCEL then follows the request on the connection's event loop.
            sentOn = c;
            if (result.isCancelled()) {
              withdraw();
            }
            sent.whenComplete((r, err) -> onReply(conn, r, err));
          });
    }

    private void onReply(CompletableFuture<Connection> conn, Response r, Throwable err) {
      if (err != null) {
        AttemptFailure f = attemptFailure(err);
        mayHaveApplied |= f.written;
        switch (f.code) {
          case UNAVAILABLE -> {
            connectionFailed(conn);
            retryOrFail(f.code, f.getMessage(), 0, f);
          }
          case OVERLOADED -> retryOrFail(f.code, f.getMessage(), 0, f);
          default -> fail(f.code, f.getMessage(), 0, f);
        }
        return;
      }
      if (!(r instanceof Response.Error e)) {
        result.complete(r);
        return;
      }
      mayHaveApplied |= !e.code().definite();
      switch (e.code()) {
        case NOT_LEADER -> {
          boolean named = e.leaderAddress() != null && !e.leaderAddress().isEmpty();
          // A node's retry-after speaks for that node only (a removed node says "not again"):
          // it holds only when the next attempt goes back to the same address.
          long retryAfterMillis = 0;
          if (named) {
            follow(conn, e.leaderAddress());
          } else {
            String answered = addressOf(conn);
            connectionFailed(conn);
            synchronized (RationClient.this) {
              if (answered != null && answered.equals(currentAddress)) {
                retryAfterMillis = e.retryAfterMillis();
              }
            }
          }
          waitOutElection(e.message(), retryAfterMillis, named, true);
        }
        case UNAVAILABLE -> {
          // A node that lost leadership after proposing names the new leader, if it knows it.
          if (e.leaderAddress() != null && !e.leaderAddress().isEmpty()) {
            follow(conn, e.leaderAddress());
          } else {
            connectionFailed(conn);
          }
          retryOrFail(e.code(), e.message(), e.retryAfterMillis(), null);
        }
        // Refused unapplied and unrecorded while the tenant's slot moves: the same request id
        // is decided afresh once it settles.
        case OVERLOADED, MOVING -> retryOrFail(e.code(), e.message(), e.retryAfterMillis(), null);
        default -> fail(e.code(), e.message(), e.retryAfterMillis(), null);
      }
    }

    private void retryOrFail(ErrorCode code, String message, long retryAfterMillis, Throwable cause) {
      if (retries >= options.maxRetries()) {
        fail(code, message + " (after " + (retries + 1) + " attempts)", retryAfterMillis, cause);
        return;
      }
      long delayMillis = backoff.delayMillis(retries, retryAfterMillis);
      long remainingMillis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - clock.nanoTime());
      if (delayMillis >= remainingMillis) {
        fail(ErrorCode.DEADLINE_EXCEEDED, "deadline leaves no time to retry after " + code + ": " + message, retryAfterMillis, cause);
        return;
      }
      retries++;
      lastRetried = cause;
      synchronized (RationClient.this) {
        if (closed) {
          fail(ErrorCode.UNAVAILABLE, "client closed", 0, cause);
          return;
        }
        // The event loop's timer only says when to try again, in real time; whether the
        // deadline allows the attempt is judged by the client's clock when it runs.
        group.schedule(this::attempt, delayMillis, TimeUnit.MILLISECONDS);
      }
    }

    /**
     * A member answered and no leader is known to it yet (or it names one): the cluster is up
     * and electing, which takes about an election timeout. Such resends do not count against
     * {@code maxRetries}, which a quick backoff would spend long before a new leader exists;
     * the deadline bounds them, and while no leader is known they are at least
     * {@link #ELECTION_POLL_MILLIS} apart, so a search costs at most 20 requests per second. A
     * named leader is followed after the usual short backoff.
     */
    private void waitOutElection(String message, long retryAfterMillis, boolean leaderNamed,
        boolean answeredNotLeader) {
      long delayMillis = backoff.delayMillis(Math.min(electionRetries, 3), retryAfterMillis);
      if (!leaderNamed) {
        delayMillis = Math.max(ELECTION_POLL_MILLIS, delayMillis);
      }
      long remainingMillis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - clock.nanoTime());
      if (delayMillis >= remainingMillis) {
        fail(ErrorCode.NOT_LEADER, message + " (no leader found within the deadline, after "
            + (retries + electionRetries + 1) + " attempts)", retryAfterMillis, null);
        return;
      }
      electionRetries++;
      lastNotLeader = answeredNotLeader ? message : null;
      synchronized (RationClient.this) {
        if (closed) {
          fail(ErrorCode.UNAVAILABLE, "client closed", 0, null);
          return;
        }
        group.schedule(this::attempt, delayMillis, TimeUnit.MILLISECONDS);
      }
    }

    private void fail(ErrorCode code, String message, long retryAfterMillis, Throwable cause) {
      // Reads have no effect; a mutation is in doubt once any attempt may have reached a server
      // (written and unanswered, or answered with an indeterminate error).
      boolean definite = !mutation || !mayHaveApplied;
      result.completeExceptionally(
          RationException.of(code, "request " + requestId + " " + request.kind() + ": " + message, definite, retryAfterMillis, cause));
    }
  }

  private static AttemptFailure attemptFailure(Throwable t) {
    Throwable c = t;
    while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
      c = c.getCause();
    }
    if (c instanceof AttemptFailure f) {
      return f;
    }
    return new AttemptFailure(ErrorCode.UNAVAILABLE, String.valueOf(c), false, c);
  }

  // ------------------------------------------------------------------ connection management

  private synchronized CompletableFuture<Connection> connection() {
    if (closed) {
      return CompletableFuture.failedFuture(new AttemptFailure(ErrorCode.UNAVAILABLE, "client closed", false, null));
    }
    if (current != null) {
      Connection c = current.getNow(null);
      if (!current.isDone() || (c != null && c.isActive())) {
        return current;
      }
    }
    current = Connection.open(group, currentAddress, options, ssl, nextRequestId())
        .thenCompose(this::preferLeader);
    return current;
  }

  /**
   * A connection to a follower that names the leader is traded for one to the leader before
   * any request goes out on it: a follower forwards writes, but each forwarded write costs the
   * cluster a hop between nodes. When the leader cannot be reached from here (a fault that cuts
   * this client off from it), the follower's connection is kept, and that leader address is not
   * tried again for {@link #UNREACHABLE_LEADER_NANOS}.
   */
  private CompletableFuture<Connection> preferLeader(Connection c) {
    Response.HelloReply h = c.helloReply();
    if (h == null || h.leader() || h.leaderAddress() == null || h.leaderAddress().isEmpty()) {
      return CompletableFuture.completedFuture(c);
    }
    String leader = h.leaderAddress();
    synchronized (this) {
      Long until = unreachableUntilNanos.get(leader);
      if (closed || leader.equals(c.address()) || (until != null && until - clock.nanoTime() > 0)) {
        return CompletableFuture.completedFuture(c);
      }
    }
    return Connection.open(group, leader, options, ssl, nextRequestId()).handle((lc, err) -> {
      synchronized (this) {
        if (err == null && !closed) {
          String previous = currentAddress;
          currentAddress = leader;
          c.close();
          reconnectLog.log(clock.nanoTime(), RateLimitedLog.Level.DEBUG,
              "{} does not lead; connected to the leader it names, {}", previous, leader);
          return lc;
        }
        unreachableUntilNanos.put(leader, clock.nanoTime() + UNREACHABLE_LEADER_NANOS);
      }
      if (lc != null) {
        lc.close();
      }
      reconnectLog.log(clock.nanoTime(), RateLimitedLog.Level.WARN,
          "the leader {} that {} names cannot be reached ({}); staying on {}, which forwards writes",
          leader, c.address(), err == null ? "client closed" : err.getMessage(), c.address());
      return c;
    });
  }

  /** The connection behind {@code failed} is unusable and no leader is known: try the next address. */
  /** The address of the connection {@code conn} holds, or null if it never opened. */
  private static String addressOf(CompletableFuture<Connection> conn) {
    if (!conn.isDone() || conn.isCompletedExceptionally()) {
      return null;
    }
    return conn.join().address();
  }

  private synchronized void connectionFailed(CompletableFuture<Connection> failed) {
    if (current != failed) {
      return; // Someone already moved on; do not rotate twice for one failure.
    }
    closeCurrent();
    String lost = currentAddress;
    addressIndex = (addressIndex + 1) % addresses.size();
    currentAddress = addresses.get(addressIndex);
    reconnectLog.log(clock.nanoTime(), RateLimitedLog.Level.WARN, "connection to {} lost or refused, no leader known; reconnecting to {}", lost, currentAddress);
  }

  private synchronized void follow(CompletableFuture<Connection> from, String leaderAddress) {
    if (current != from || leaderAddress.equals(currentAddress)) {
      return;
    }
    closeCurrent();
    String previous = currentAddress;
    currentAddress = leaderAddress;
    // Routine after an election and on most first requests (a CLI command, a new client): a
    // debug line, or every command line tool run would print it.
    reconnectLog.log(clock.nanoTime(), RateLimitedLog.Level.DEBUG, "{} does not lead; reconnecting to the leader it names, {}", previous, currentAddress);
  }

  private void closeCurrent() {
    if (current != null) {
      current.thenAccept(Connection::close);
      current = null;
    }
  }

  /** Closes the connection and releases the event loop; in-flight calls fail UNAVAILABLE. */
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      closeCurrent();
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  // ------------------------------------------------------------------ helpers

  private static <T extends Response> CompletableFuture<T> typed(CompletableFuture<Response> f, Class<T> type) {
    return f.thenApply(
        r -> {
          if (!type.isInstance(r)) {
            throw RationException.of(ErrorCode.INTERNAL, "expected " + type.getSimpleName() + " but got " + r, false, 0, null);
          }
          return type.cast(r);
        });
  }

  private static <T> T join(CompletableFuture<T> f) {
    try {
      return f.join();
    } catch (CompletionException e) {
      Throwable c = e.getCause();
      if (c instanceof RationException re) {
        throw re;
      }
      throw RationException.of(ErrorCode.INTERNAL, String.valueOf(c), false, 0, c);
    }
  }
}
