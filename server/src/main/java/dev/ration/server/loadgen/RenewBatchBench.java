package dev.ration.server.loadgen;

import dev.ration.client.LeaseResult;
import dev.ration.client.SetLimitResult;
import dev.ration.client.transport.RawClient;
import dev.ration.client.LimitSpec;
import dev.ration.client.RationClient;
import dev.ration.client.internal.protocol.Request;
import dev.ration.client.internal.protocol.Response;
import dev.ration.wire.Mode;
import dev.ration.wire.Outcome;
import dev.ration.client.limiter.LeaseInfo;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;

/**
 * `ration bench --op renew-batch`: a region holding many leases (one per tenant, say) renews
 * them in RENEW_LEASES frames. {@code leases} leases are acquired first (not measured), spread
 * over limits of at most 10,000 leases each; then {@code inFlight} slots each own an equal part
 * of them and keep one batch of {@code batchSize} renewals outstanding, cycling through their
 * part and presenting the version each lease's last answer carried. Counted: renewals answered
 * SUCCESS per second, other answers, failed frames, and the latency of a whole batch.
 *
 * <p>Threads: batches complete on the clients' event-loop threads; a slot's state is touched by
 * one batch at a time; latencies go to one synchronized HdrHistogram (microseconds).
 */
final class RenewBatchBench {
  /** Leases one limit holds at most in the default configuration (ledger.max-leases-per-limit). */
  static final int LEASES_PER_LIMIT = 10_000;

  record Result(int inFlight, int clients, int leases, int batchSize, double windowSeconds,
      long renewed, long refused, long failedBatches, long batches, LatencySummary latency,
      java.util.Map<Outcome, Long> refusals) {
    double renewalsPerSecond() {
      return renewed / windowSeconds;
    }
  }

  private final List<RationClient> clients;
  private final String tenant;
  private final int inFlight;
  private final int leaseCount;
  private final int batchSize;
  private final Duration leaseDuration;
  private final LongSupplier clock;
  private final Histogram histogram = Accounting.newHistogram();
  private final AtomicLong renewed = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private final java.util.concurrent.ConcurrentHashMap<Outcome, AtomicLong> refusals =
      new java.util.concurrent.ConcurrentHashMap<>();
  private final AtomicLong failedBatches = new AtomicLong();
  private final AtomicLong batches = new AtomicLong();
  private volatile long measureStart;
  private volatile long measureEnd;

  RenewBatchBench(List<RationClient> clients, String tenant, int inFlight, int leases,
      int batchSize, Duration leaseDuration, LongSupplier clock) {
    this.clients = List.copyOf(clients);
    this.tenant = tenant;
    this.inFlight = inFlight;
    this.leaseCount = leases;
    this.batchSize = batchSize;
    this.leaseDuration = leaseDuration;
    this.clock = clock;
  }

  /** One slot's leases: ids and the version each last answer carried. */
  private static final class Slot {
    final long[] ids;
    final long[] versions;
    int next;

    Slot(List<LeaseInfo> leases) {
      ids = leases.stream().mapToLong(LeaseInfo::leaseId).toArray();
      versions = leases.stream().mapToLong(LeaseInfo::version).toArray();
    }
  }

  Result run(long warmupNanos, long windowNanos, long drainNanos, PrintWriter progress)
      throws InterruptedException {
    List<LeaseInfo> leases = acquire(progress);
    int perSlot = leases.size() / inFlight;
    long start = clock.getAsLong();
    measureStart = start + warmupNanos;
    measureEnd = measureStart + windowNanos;
    CountDownLatch stopped = new CountDownLatch(inFlight);
    for (int i = 0; i < inFlight; i++) {
      Slot slot = new Slot(leases.subList(i * perSlot, (i + 1) * perSlot));
      next(clients.get(i % clients.size()), slot, stopped);
    }
    stopped.await(warmupNanos + windowNanos + drainNanos, TimeUnit.NANOSECONDS);
    LatencySummary latency;
    synchronized (histogram) {
      latency = LatencySummary.of(histogram);
    }
    return new Result(inFlight, clients.size(), leases.size(), batchSize, windowNanos / 1e9,
        renewed.get(), refused.get(), failedBatches.get(), batches.get(), latency,
        refusals.entrySet().stream().collect(java.util.stream.Collectors.toMap(
            java.util.Map.Entry::getKey, e -> e.getValue().get())));
  }

  private List<LeaseInfo> acquire(PrintWriter progress) {
    RationClient admin = clients.get(0);
    int limits = (leaseCount + LEASES_PER_LIMIT - 1) / LEASES_PER_LIMIT;
    for (int l = 0; l < limits; l++) {
      SetLimitResult set = admin.setLimit(LimitSpec.builder(tenant, "renew-batch-" + l)
          .ratePerSecond(1_000_000_000L).burst(1_000_000_000L).mode(Mode.HARD)
          .leaseDuration(leaseDuration).grace(Duration.ofSeconds(1)).build());
      if (set.outcome() != Outcome.SUCCESS) {
        throw new IllegalStateException("bench: limit renew-batch-" + l + ": " + set.outcome()
            + " " + set.message());
      }
    }
    String holder = "batch-" + ProcessHandle.current().pid() + "-";
    List<LeaseInfo> out = new ArrayList<>(leaseCount);
    List<CompletableFuture<LeaseResult>> pending = new ArrayList<>();
    for (int i = 0; i < leaseCount; i++) {
      pending.add(clients.get(i % clients.size()).acquireLeaseAsync(tenant,
          "renew-batch-" + i / LEASES_PER_LIMIT, holder + i, 1, 1));
      if (pending.size() == 256 || i == leaseCount - 1) {
        for (CompletableFuture<LeaseResult> f : pending) {
          LeaseResult r = f.join();
          if (r.outcome() != Outcome.SUCCESS) {
            throw new IllegalStateException("bench: acquire: " + r.outcome() + " " + r.message());
          }
          out.add(r.lease().orElseThrow());
        }
        pending.clear();
      }
    }
    progress.printf(Locale.ROOT, "bench: %d leases acquired over %d limit(s)%n", out.size(), limits);
    progress.flush();
    return out;
  }

  private void next(RationClient client, Slot slot, CountDownLatch stopped) {
    long sent = clock.getAsLong();
    if (sent - measureEnd >= 0) {
      stopped.countDown();
      return;
    }
    int n = Math.min(batchSize, slot.ids.length);
    int[] index = new int[n];
    List<Request.RenewLease> renewals = new ArrayList<>(n);
    for (int k = 0; k < n; k++) {
      int i = slot.next;
      slot.next = (slot.next + 1) % slot.ids.length;
      index[k] = i;
      renewals.add(new Request.RenewLease(slot.ids[i], slot.versions[i], 1, 1, 1, 0, 0));
    }
    RawClient.of(client).call(new Request.RenewLeases(renewals), Response.RenewalsReply.class).whenComplete((reply, err) -> {
      long done = clock.getAsLong();
      boolean measured = sent - measureStart >= 0 && done - measureEnd < 0;
      if (err == null && reply.outcome() == Outcome.SUCCESS) {
        long ok = 0;
        for (int k = 0; k < reply.replies().size(); k++) {
          Response.LeaseReply r = reply.replies().get(k);
          if (r.outcome() == Outcome.SUCCESS) {
            slot.versions[index[k]] = r.lease().version();
            ok++;
          } else {
            if (r.currentVersion() > 0) {
              slot.versions[index[k]] = r.currentVersion();
            }
            if (measured) {
              refusals.computeIfAbsent(r.outcome(), o -> new AtomicLong()).incrementAndGet();
            }
          }
        }
        if (measured) {
          renewed.addAndGet(ok);
          refused.addAndGet(reply.replies().size() - ok);
        }
      } else if (measured) {
        failedBatches.incrementAndGet();
      }
      if (measured) {
        batches.incrementAndGet();
        synchronized (histogram) {
          histogram.recordValue(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMicros(done - sent),
              histogram.getHighestTrackableValue())));
        }
      }
      CompletableFuture.runAsync(() -> next(client, slot, stopped));
    });
  }

  static String table(Result r) {
    LatencySummary l = r.latency();
    return String.format(Locale.ROOT,
        "op            renew-batch%nin-flight     %d batch(es) over %d connection(s)%n"
            + "leases        %d, %d renewals per batch%nwindow        %.1f s%n"
            + "renewed       %d (%.1f/s) in %d batches%nrefused       %d renewals %s%n"
            + "failed        %d batches%n"
            + "batch latency p50 %s  p90 %s  p99 %s  p99.9 %s  max %s%n",
        r.inFlight(), r.clients(), r.leases(), r.batchSize(), r.windowSeconds(), r.renewed(),
        r.renewalsPerSecond(), r.batches(), r.refused(), r.refusals(), r.failedBatches(),
        LoadGenerator.millisText(l.p50Micros()), LoadGenerator.millisText(l.p90Micros()),
        LoadGenerator.millisText(l.p99Micros()), LoadGenerator.millisText(l.p999Micros()),
        LoadGenerator.millisText(l.maxMicros()));
  }

  static String json(Result r) {
    LatencySummary l = r.latency();
    return String.format(Locale.ROOT,
        "{\"op\":\"renew-batch\",\"inFlight\":%d,\"connections\":%d,\"leases\":%d,\"batchSize\":%d,"
            + "\"windowSeconds\":%.3f,\"renewed\":%d,\"renewedPerSecond\":%.1f,\"batches\":%d,"
            + "\"refused\":%d,\"failedBatches\":%d,"
            + "\"batchLatencyMicros\":{\"p50\":%d,\"p90\":%d,\"p99\":%d,\"p999\":%d,\"max\":%d}}",
        r.inFlight(), r.clients(), r.leases(), r.batchSize(), r.windowSeconds(), r.renewed(),
        r.renewalsPerSecond(), r.batches(), r.refused(), r.refusals(), r.failedBatches(), l.p50Micros(),
        l.p90Micros(), l.p99Micros(), l.p999Micros(), l.maxMicros());
  }
}
