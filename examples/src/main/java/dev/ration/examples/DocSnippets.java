package dev.ration.examples;

import dev.ration.client.LimitSpec;
import dev.ration.client.RationClient;
import dev.ration.client.time.MonotonicInstant;
import dev.ration.client.ttl.Change;
import dev.ration.client.ttl.NearCache;
import dev.ration.client.ttl.TtlWatch;
import dev.ration.client.ttl.TtlWatchListener;
import dev.ration.client.ttl.cache.CacheStats;
import dev.ration.client.ttl.cache.EvictionPolicy;
import dev.ration.client.ttl.cache.TtlCache;
import dev.ration.client.RationClientOptions;
import dev.ration.client.RationException;
import dev.ration.client.SetLimitResult;
import dev.ration.client.limiter.Decision;
import dev.ration.client.limiter.LeaseInfo;
import dev.ration.client.limiter.LeaseState;
import dev.ration.client.limiter.LimitInfo;
import dev.ration.client.limiter.LimiterOptions;
import dev.ration.client.limiter.ManualScheduler;
import dev.ration.client.limiter.RateLimiter;
import dev.ration.client.metrics.RateLimiterMetrics;
import dev.ration.client.quota.AckResult;
import dev.ration.client.quota.AuditEntry;
import dev.ration.client.quota.IngestResult;
import dev.ration.client.quota.Item;
import dev.ration.client.quota.QuotaClient;
import dev.ration.client.quota.QuotaDefinition;
import dev.ration.client.quota.QuotaLimiter;
import dev.ration.client.quota.QuotaRefusedException;
import dev.ration.client.quota.QuotaStatus;
import dev.ration.client.quota.ReconcileResult;
import dev.ration.client.quota.Reservation;
import dev.ration.client.quota.ReserveRequest;
import dev.ration.client.quota.ReserveResult;
import dev.ration.client.quota.UsageAggregates;
import dev.ration.client.quota.UsageBatch;
import dev.ration.client.quota.UsageRecord;
import dev.ration.client.quota.UsageReport;
import dev.ration.client.time.LedgerTime;
import dev.ration.client.tls.ClientTls;
import dev.ration.http.RateLimitFilter;
import dev.ration.http.TenantLimiters;
import jakarta.servlet.Filter;
import java.nio.file.Path;
import dev.ration.client.ttl.Entry;
import dev.ration.client.ttl.Lock;
import dev.ration.client.ttl.NamespaceSpec;
import dev.ration.client.ttl.TtlEntries;
import dev.ration.client.ttl.WriteResult;
import dev.ration.wire.CapacityPolicy;
import dev.ration.wire.Mode;
import dev.ration.wire.Outcome;
import dev.ration.wire.Window;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import dev.ration.client.slots.LeasedSlots;
import dev.ration.client.pool.WorkerPool;
import dev.ration.client.pool.PoolOptions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.LongConsumer;

/**
 * The Java snippets of docs/LIMITER.md, docs/QUOTAS.md, docs/TTL.md and docs/CLIENT.md, compiled. Each snippet
 * in those documents is the text between a {@code tag::name[]} and an {@code end::name[]}
 * comment here, indentation removed; {@code DocsSnippetTest} fails when a document shows code
 * that is not in a tagged region, so the documents cannot drift from the API.
 *
 * <p>Not run as a service: the methods take what a real handler would have (a client, a
 * response, a registry) as parameters.
 */
public final class DocSnippets {
  private DocSnippets() {}

  static void limiterInAHandler(HttpServletResponse response) throws IOException {
    // tag::limiter-basic[]
    RationClient client = RationClient.connect("10.0.0.1:7101", "10.0.0.2:7101", "10.0.0.3:7101");
    RateLimiter limiter = client.rateLimiter("acme", "api-requests", "eu-west-1");   // once per process
    limiter.awaitReady(Duration.ofSeconds(5));    // optional: wait, bounded, for the first lease

    // per request, in the handler:
    Decision d = limiter.decide(1);               // or: if (limiter.tryAcquire(1)) { ... }
    if (!d.allowed()) {
      response.setHeader("Retry-After", Long.toString(d.retryAfterSeconds()));
      response.sendError(429);
      return;
    }
    // ... serve the request ...

    limiter.close();   // on shutdown: stops admitting, then hands unused tokens back
    // end::limiter-basic[]
    client.close();
  }

  static SetLimitResult setLimit(RationClient client) {
    // tag::limiter-set-limit[]
    SetLimitResult set = client.setLimit(LimitSpec.builder("acme", "api-requests")
        .ratePerSecond(1_000).burst(2_000)
        .mode(Mode.BEST_EFFORT).emergency(500)
        .leaseDuration(Duration.ofSeconds(10)).grace(Duration.ofSeconds(2))
        .build());
    if (!set.succeeded()) {
      throw new IllegalStateException(set.outcome() + ": " + set.message());
    }
    // end::limiter-set-limit[]
    return set;
  }

  static Duration readLimit(RationClient client) {
    // tag::limiter-read[]
    LimitInfo limit = client.getLimit("acme", "api-requests").orElseThrow();
    Duration leases = limit.leaseDuration();                   // as set: 10 s
    LedgerTime now = client.clusterStatus().ledgerNow();       // the cluster's clock, not Instant
    for (LeaseInfo held : client.listLeases("acme", "api-requests")) {
      Duration left = now.until(held.expiresAt());             // negative once expired
      System.out.println(held.holder() + " holds " + held.rateShare() + "/s for " + left);
    }
    // end::limiter-read[]
    return leases;
  }

  static void limiterMetrics(RationClient client, MeterRegistry meterRegistry,
      Consumer<LeaseState> health) {
    // tag::limiter-metrics[]
    RateLimiter limiter = client.rateLimiter("acme", "api-requests", "eu-west-1");
    new RateLimiterMetrics(limiter).bindTo(meterRegistry);          // dev.ration.client.metrics
    limiter.addListener((l, from, to) -> health.accept(to));        // LeaseState changes
    // end::limiter-metrics[]
  }

  static void quotaDefinition(RationClient client) {
    // tag::quota-set[]
    QuotaClient quotas = client.quotas();
    quotas.setQuota(QuotaDefinition.concurrent("acme", "jobs", 10)
        .unit("jobs").softLimit(8).actor("alice").reason("plan").build());
    quotas.setQuota(QuotaDefinition.rate("acme/shop", "api-calls", 6_000, Window.MINUTE)
        .allowOverage(600).actor("alice").reason("burst allowance").build());
    // end::quota-set[]
  }

  static void quotaReserve(QuotaClient quotas, IntSupplier runJobs) {
    // tag::quota-reserve[]
    try (Reservation r = quotas.reserve("acme/shop/web", "jobs", 3, Duration.ofMinutes(5))) {
      int used = runJobs.getAsInt();   // an exception here: close() cancels (quantity 0, one event)
      r.actual(used);                  // set last: close() completes with it (one event)
    } catch (QuotaRefusedException e) {
      // e.levelScope() refused; e.retryAfter() (zero: use a bounded backoff)
    }
    // end::quota-reserve[]
  }

  static long quotaTryReserve(QuotaClient quotas, String orderId) {
    // tag::quota-try-reserve[]
    ReserveResult r = quotas.tryReserve("acme/shop/web",
        List.of(new Item("jobs", 2), new Item("gpu-minutes", 30)),
        0, Duration.ofMinutes(10), "order-" + orderId);   // a retry with the same key: same answer
    if (r.outcome() == Outcome.SUCCESS) {
      quotas.complete(r.reservationId(), List.of(2L, 12L));
    } else {
      // r.levelScope() and r.resource() refused; r.retryAfter() is a hint (zero: unknown)
    }
    // end::quota-try-reserve[]
    return r.reservationId();
  }

  static List<ReserveResult> quotaReserveAll(QuotaClient quotas) {
    // tag::quota-reserve-all[]
    List<ReserveResult> r = quotas.tryReserveAll(List.of(
        ReserveRequest.of("acme/shop/a", "storage", 6, Duration.ofMinutes(5)),
        ReserveRequest.of("acme/shop/b", "storage", 5, Duration.ofMinutes(5))));
    // end::quota-reserve-all[]
    return r;
  }

  static WorkerPool quotaSlots(RationClient client) {
    // tag::quota-slots[]
    LeasedSlots slots = client.quotaSlots("export-worker-1", "acme/shop/reports", "exports", 8,
        Duration.ofSeconds(10));
    WorkerPool pool = new WorkerPool(PoolOptions.of(8, 500), slots);
    // end::quota-slots[]
    return pool;
  }

  static boolean quotaLimiter(RationClient client, String project) {
    // tag::quota-limiter[]
    QuotaLimiter quota = client.quotaLimiter("api-eu-1");      // one per process, every scope
    quota.awaitReady("acme/shop/" + project, "api-calls", Duration.ofSeconds(2));  // optional
    QuotaLimiter.Decision d = quota.decide("acme/shop/" + project, "api-calls", 1);
    if (!d.admitted()) {
      // answer 429 with Retry-After: d.retryAfter(); d.reason() says why
    }
    // end::quota-limiter[]
    boolean admitted = d.admitted() || quota.tryAcquire("acme/shop/" + project, "api-calls", 1);
    quota.close();
    return admitted;
  }

  static void ttlEntries(RationClient client) {
    // tag::ttl-entries[]
    TtlEntries ttl = client.ttl();
    ttl.setNamespace(NamespaceSpec.builder("sessions").maxEntries(100_000).maxBytes(64L << 20)
        .whenFull(CapacityPolicy.EVICT_SOONEST_EXPIRING).build());

    WriteResult put = ttl.put("sessions", "u-42", "token".getBytes(StandardCharsets.UTF_8),
        Duration.ofMinutes(30));
    Optional<Entry> live = ttl.get("sessions", "u-42");          // never an expired entry
    WriteResult cas = ttl.compareAndSet("sessions", "u-42", put.version(),
        "token-2".getBytes(StandardCharsets.UTF_8), Duration.ofMinutes(30));
    if (cas.outcome() == Outcome.VERSION_MISMATCH) {
      // someone else wrote it first: cas.currentVersion() is theirs
    }
    ttl.refresh("sessions", "u-42", Duration.ofMinutes(30), 0);  // expiry only; same version
    ttl.update("sessions", "u-42", "token-3".getBytes(StandardCharsets.UTF_8), 0); // value only; expiry kept
    ttl.put("flags", "dark-mode", new byte[] {1}, TtlEntries.NO_EXPIRY);
    // end::ttl-entries[]
  }

  static void ttlCache(dev.ration.client.time.MonotonicClock clock,
      java.util.concurrent.ScheduledExecutorService scheduler, byte[] token, byte[] newToken, byte[] bytes) {
    // tag::ttl-cache[]
    TtlCache<String, byte[]> cache = TtlCache.builder()
        .maxEntries(100_000)
        .maxBytes(64L << 20, (String k, byte[] v) -> k.length() + v.length)
        .policy(EvictionPolicy.LRU)                 // or LFU, SOONEST_EXPIRING
        .clock(clock)                               // a MonotonicClock; System.nanoTime by default
        .sweepEvery(Duration.ofSeconds(1), scheduler) // optional background clean-up
        .build();

    cache.put("u-42", token, Duration.ofMinutes(30));
    cache.putUntil("u-43", token, MonotonicInstant.now(clock).plus(Duration.ofMinutes(5)));
    cache.put("config", bytes);                     // never expires
    Optional<byte[]> live = cache.get("u-42");      // never an expired value
    cache.putKeepTtl("u-42", newToken);             // new value, same expiry
    cache.expire("u-42", Duration.ofMinutes(1));    // same value, new expiry
    Optional<Duration> left = cache.ttl("u-42");    // TtlCache.NO_EXPIRY when it never expires
    cache.delete("u-42");
    byte[] v = cache.getOrLoad("u-44", Duration.ofMinutes(30), key -> fetch(key));
    CacheStats stats = cache.stats();
    // end::ttl-cache[]
  }

  static void ttlWatch(RationClient client) {
    // tag::ttl-watch[]
    TtlWatch w = client.ttl().watch("flags", -1, new TtlWatchListener() {   // -1: from now
      public void onChanges(List<Change> changes, long throughIndex) { /* in log order */ }
      public void onCompacted(long throughIndex) { /* missed changes: read again */ }
    });
    long resumeFrom = w.position();   // later: client.ttl().watch("flags", resumeFrom, listener)
    w.close();
    // end::ttl-watch[]
  }

  static void ttlNearCache(RationClient client) {
    // tag::ttl-near-cache[]
    NearCache flags = client.ttl().cached("flags", NearCache.Options.defaults()
        .withMaxEntries(50_000).withStaleness(Duration.ofSeconds(1), Duration.ofSeconds(2)));
    Optional<Entry> f = flags.get("checkout-v2");   // memory after the first read of the key
    // end::ttl-near-cache[]
    flags.close();
  }

  /** What the cache snippet loads a missing key from. */
  static byte[] fetch(String key) {
    return key.getBytes(StandardCharsets.UTF_8);
  }

  static void ttlLock(RationClient client, FencedStorage storage, byte[] bytes) {
    // tag::ttl-lock[]
    Optional<Lock> lock = client.ttl().tryLock("invoice-batch", "worker-7", Duration.ofSeconds(10));
    if (lock.isPresent()) {
      try {
        storage.write("batch.csv", bytes, lock.get().fencingToken());
      } finally {
        lock.get().release();
      }
    }
    // end::ttl-lock[]
  }

  /** The protected resource of the lock snippet: it refuses writes under an old token. */
  static final class FencedStorage {
    private long highestTokenSeen;

    // tag::ttl-fencing[]
    // inside the storage service
    synchronized void write(String file, byte[] data, long fencingToken) {
      if (fencingToken < highestTokenSeen) {
        throw new StaleLockException(fencingToken + " < " + highestTokenSeen);
      }
      highestTokenSeen = fencingToken;
      // ... write ...
    }
    // end::ttl-fencing[]
  }

  static void limiterFailures(RateLimiter limiter, Runnable serve, Runnable refuse) {
    // tag::limiter-failures[]
    if (limiter.tryAcquire(1)) {
      serve.run();
    } else if (limiter.state() == LeaseState.LOST || limiter.state() == LeaseState.SUSPENDED) {
      refuse.run();   // hard mode, the lease ran out: nothing is admitted until it is renewed or replaced
    } else {
      refuse.run();   // out of tokens, or no lease yet: see decide(1).reason()
    }
    // end::limiter-failures[]
  }

  static void limiterTest(RationClient client) {
    // tag::limiter-testing[]
    ManualScheduler clock = new ManualScheduler();          // time moves only when the test says so
    RateLimiter limiter = client.rateLimiter("acme", "api-requests", "test-1",
        LimiterOptions.builder().manual(clock).demand(100, 100).build());
    limiter.tryAcquire(1);                                  // starts the acquire (answered NO_LEASE)
    for (int i = 0; i < 1_000 && !limiter.ready(); i++) {
      clock.advance(Duration.ofMillis(20));                 // runs what is due: the acquire's answer
    }
    clock.advance(Duration.ofSeconds(10));                  // renewals and expiry follow this clock
    // end::limiter-testing[]
  }

  static Filter httpFilter() {
    // tag::client-http-filter[]
    RationClient client = RationClient.connect("10.0.0.1:7101", "10.0.0.2:7101", "10.0.0.3:7101");
    TenantLimiters limiters = new TenantLimiters(client, "api-requests", "eu-west-1",
        LimiterOptions.defaults(), 10_000);                       // one limiter per tenant, bounded
    Filter filter = RateLimitFilter.builder(limiters, "api-requests")
        .tenantAttribute("dev.ration.tenant")                    // set by your authentication filter
        .cost(request -> request.getMethod().equals("POST") ? 5 : 1)   // optional weights
        .build();
    // end::client-http-filter[]
    return filter;
  }

  static RationClient tlsClient() {
    // tag::client-tls[]
    RationClient client = new RationClient(RationClientOptions.builder()
        .addresses(List.of("n1.internal:7101", "n2.internal:7101", "n3.internal:7101"))
        .tls(ClientTls.trusting(Path.of("/etc/myservice/ration/ca.crt"))
            .withKeyPair(Path.of("/etc/myservice/ration/client.crt"), Path.of("/etc/myservice/ration/client.key")))
        .build());
    // end::client-tls[]
    return client;
  }

  static RationClientOptions tokenOptions() {
    // tag::client-token[]
    RationClientOptions options = RationClientOptions.builder()
        .addresses(List.of("10.0.0.1:7101", "10.0.0.2:7101", "10.0.0.3:7101"))
        .token(System.getenv("RATION_TOKEN"))   // rtn_<16 hex digits>_<secret>
        .build();
    // end::client-token[]
    return options;
  }

  static void clientFailures(RationClient client) throws InterruptedException {
    // tag::client-failures[]
    try {
      client.ttl().put("sessions", "u-42", new byte[] {1}, Duration.ofMinutes(30));
    } catch (RationException e) {
      if (e.definite()) {
        // certainly not applied: safe to report, or to try again later
        Thread.sleep(Math.max(100, e.retryAfter().toMillis()));   // zero: the server gave no hint
      } else {
        // may have been applied: read back, or retry the same request, before acting on it
      }
    }
    // end::client-failures[]
  }

  static void usageIngest(RationClient client, String requestId, long bytesServed) {
    // tag::quota-ingest[]
    QuotaClient quotas = client.quotas();
    LedgerTime now = client.clusterStatus().ledgerNow();     // event times are ledger time
    IngestResult r = quotas.ingestUsage(
        UsageReport.of("egress-" + requestId, now, "acme/shop/web", "egress", bytesServed)
            .withUnit("bytes"));
    if (!r.succeeded()) {
      // INVALID_ARGUMENT: r.message() says why (event time outside the accepted window...)
    }   // r.duplicate(): this event id was recorded before, and is counted once
    // end::quota-ingest[]
  }

  static void usageConsumer(QuotaClient quotas, Consumer<UsageRecord> billing) {
    // tag::quota-consumer[]
    UsageBatch batch = quotas.readUsage("billing", 500);     // after billing's acknowledged cursor
    for (UsageRecord rec : batch.records()) {
      billing.accept(rec);   // at least once: after a crash before the ack, these come again
    }
    AckResult ack = quotas.ackUsage("billing", batch.readUpTo());   // the replicated cursor moves
    // end::quota-consumer[]
  }

  static void usageReports(QuotaClient quotas, LedgerTime monthStart, LedgerTime monthEnd,
      LongConsumer invoice) {
    // tag::quota-reports[]
    UsageAggregates egress = quotas.aggregateUsage("acme", "egress", monthStart, monthEnd);
    invoice.accept(egress.total());                           // per hour: egress.buckets()

    ReconcileResult check = quotas.reconcile("acme", "", monthStart, monthEnd);   // reads only
    if (!check.drifts().isEmpty()) {
      quotas.repair("acme", "", monthStart, monthEnd, "alice", "month-end check");   // audited
    }
    List<AuditEntry> changes = quotas.readAudit(1, 100);      // who changed what, when, why
    List<QuotaStatus> versions = quotas.quotaHistory("acme", "jobs");
    // end::quota-reports[]
  }

  /** A write under a lapsed lock. */
  static final class StaleLockException extends RuntimeException {
    StaleLockException(String message) {
      super(message);
    }
  }
}
