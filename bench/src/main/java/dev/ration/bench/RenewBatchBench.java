package dev.ration.bench;

import dev.ration.client.LimitSpec;
import dev.ration.client.RationClient;
import dev.ration.client.SetLimitResult;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.client.transport.RawClient;
import dev.ration.wire.Mode;
import dev.ration.wire.Outcome;
import dev.ration.wire.Policy;
import dev.ration.wire.lease.Limit;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;

/**
 * `ration bench --op renew-batch` and `--op renew-slots`: a region holding many leases (one per
 * tenant, say) renews them in batches, rate leases in RENEW_LEASES frames, slot leases in
 * RENEW_SLOTS frames. {@code leases} leases are acquired first (not measured), spread over limits
 * of at most 10,000 leases each; then {@code inFlight} slots each own an equal part of them and
 * keep one batch of {@code batchSize} renewals outstanding, cycling through their part and
 * presenting the version each lease's last answer carried. Counted: renewals answered SUCCESS
 * per second, other answers (by outcome), failed frames, and the latency of a whole batch.
 *
 * <p>Both kinds share everything but the limit, the acquire and the frame: see {@link Leased}.
 *
 * <p>Threads: batches complete on the clients' event-loop threads; a slot's state is touched by
 * one batch at a time; latencies go to one synchronized HdrHistogram (microseconds).
 */
public final class RenewBatchBench {
  /** Leases one limit holds at most in the default configuration (ledger.max-leases-per-limit). */
  static final int LEASES_PER_LIMIT = 10_000;

  /** One renewal's answer: its outcome and the version it names (granted, or current; 0 unknown). */
  record Answer(Outcome outcome, long version) {}

  /** A lease as acquired: its id and version. */
  record Held(long leaseId, long version) {}

  /** What is leased and renewed. */
  public enum Leased {
    /** Rate and burst shares of a limit with a huge R and B; RENEW_LEASES. */
    RATE("renew-batch") {
      @Override
      void setLimit(RationClient admin, String tenant, String resource, Duration leaseDuration,
          Duration grace) {
        SetLimitResult set = admin.setLimit(LimitSpec.builder(tenant, resource)
            .ratePerSecond(1_000_000_000L).burst(1_000_000_000L).mode(Mode.HARD)
            .leaseDuration(leaseDuration).grace(grace).build());
        if (set.outcome() != Outcome.SUCCESS) {
          throw new IllegalStateException("bench: limit " + resource + ": " + set.outcome() + " " + set.message());
        }
      }

      @Override
      CompletableFuture<Held> acquire(RationClient client, String tenant, String resource, String holder) {
        return client.acquireLeaseAsync(tenant, resource, holder, 1, 1).thenApply(r -> {
          if (r.outcome() != Outcome.SUCCESS) {
            throw new IllegalStateException("bench: acquire: " + r.outcome() + " " + r.message());
          }
          return new Held(r.lease().orElseThrow().leaseId(), r.lease().orElseThrow().version());
        });
      }

      @Override
      CompletableFuture<List<Answer>> renew(RationClient client, long[] ids, long[] versions) {
        List<Request.RenewLease> renewals = new ArrayList<>(ids.length);
        for (int k = 0; k < ids.length; k++) {
          renewals.add(new Request.RenewLease(ids[k], versions[k], 1, 1, 1, 0, 0));
        }
        return RawClient.of(client).call(new Request.RenewLeases(renewals), Response.RenewalsReply.class)
            .thenApply(reply -> {
              if (reply.outcome() != Outcome.SUCCESS) {
                throw new IllegalStateException("frame refused: " + reply.outcome() + " " + reply.message());
              }
              return reply.replies().stream().map(r -> r.outcome() == Outcome.SUCCESS
                  ? new Answer(r.outcome(), r.lease().version())
                  : new Answer(r.outcome(), r.currentVersion())).toList();
            });
      }
    },

    /**
     * Concurrency slots of a limit with a huge cap C (each lease asks for one slot, so none is
     * refused for capacity, leases of an earlier run included), free-capacity policy like the
     * rate limits; RENEW_SLOTS, each renewal reporting one job running and making no release
     * promise (-1).
     */
    SLOTS("renew-slots") {
      @Override
      void setLimit(RationClient admin, String tenant, String resource, Duration leaseDuration,
          Duration grace) {
        Limit limit = new Limit(tenant, resource, 0, 0, Mode.HARD, leaseDuration.toMillis(),
            grace.toMillis(), 0, Policy.FREE_CAPACITY, 0);
        Response r = RawClient.of(admin).call(new Request.SetLimitConcurrency(limit, 1_000_000_000L)).join();
        if (!(r instanceof Response.SlotLimitReply s) || s.outcome() != Outcome.SUCCESS) {
          throw new IllegalStateException("bench: concurrency of limit " + resource + ": " + r);
        }
      }

      @Override
      CompletableFuture<Held> acquire(RationClient client, String tenant, String resource, String holder) {
        return RawClient.of(client).call(new Request.AcquireSlots(tenant, resource, holder, 1),
            Response.SlotLeaseReply.class).thenApply(r -> {
              if (r.outcome() != Outcome.SUCCESS || r.lease().slotShare() != 1) {
                throw new IllegalStateException("bench: acquire slots: " + r.outcome() + " " + r.message()
                    + (r.lease() == null ? "" : ", share " + r.lease().slotShare()));
              }
              return new Held(r.lease().leaseId(), r.lease().version());
            });
      }

      @Override
      CompletableFuture<List<Answer>> renew(RationClient client, long[] ids, long[] versions) {
        List<Request.SlotRenewal> renewals = new ArrayList<>(ids.length);
        for (int k = 0; k < ids.length; k++) {
          renewals.add(new Request.SlotRenewal(ids[k], versions[k], 1, 0, -1));
        }
        return RawClient.of(client).call(new Request.RenewSlots(renewals), Response.SlotRenewalsReply.class)
            .thenApply(reply -> {
              if (reply.outcome() != Outcome.SUCCESS) {
                throw new IllegalStateException("frame refused: " + reply.outcome() + " " + reply.message());
              }
              return reply.replies().stream().map(r -> r.outcome() == Outcome.SUCCESS
                  ? new Answer(r.outcome(), r.lease().version())
                  : new Answer(r.outcome(), r.currentVersion())).toList();
            });
      }
    };

    private final String op;

    Leased(String op) {
      this.op = op;
    }

    /** The --op name, also the prefix of the bench's limits. */
    public String op() {
      return op;
    }

    /** Sets limit {@code resource} for the bench's leases; throws if refused. */
    abstract void setLimit(RationClient admin, String tenant, String resource, Duration leaseDuration,
        Duration grace);

    /** Acquires one lease; the future fails if it is refused. */
    abstract CompletableFuture<Held> acquire(RationClient client, String tenant, String resource, String holder);

    /** Renews the leases in one frame: one answer per lease, in order; fails if the frame does. */
    abstract CompletableFuture<List<Answer>> renew(RationClient client, long[] ids, long[] versions);
  }

  public record Result(String op, int inFlight, int clients, int leases, int batchSize, double windowSeconds,
      long renewed, long refused, long failedBatches, long batches, LatencySummary latency,
      Map<Outcome, Long> refusals) {
    double renewalsPerSecond() {
      return renewed / windowSeconds;
    }
  }

  private final Leased leased;
  private final List<RationClient> clients;
  private final String tenant;
  private final int inFlight;
  private final int leaseCount;
  private final int batchSize;
  private final Duration leaseDuration;
  private final Duration grace;
  private final LongSupplier clock;
  private final Histogram histogram = Accounting.newHistogram();
  private final AtomicLong renewed = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private final ConcurrentHashMap<Outcome, AtomicLong> refusals = new ConcurrentHashMap<>();
  private final AtomicLong failedBatches = new AtomicLong();
  private final AtomicLong batches = new AtomicLong();
  private volatile long measureStart;
  private volatile long measureEnd;

  public RenewBatchBench(Leased leased, List<RationClient> clients, String tenant, int inFlight, int leases,
      int batchSize, Duration leaseDuration, Duration grace, LongSupplier clock) {
    this.leased = leased;
    this.clients = List.copyOf(clients);
    this.tenant = tenant;
    this.inFlight = inFlight;
    this.leaseCount = leases;
    this.batchSize = batchSize;
    this.leaseDuration = leaseDuration;
    this.grace = grace;
    this.clock = clock;
  }

  /** One slot's leases: ids and the version each last answer carried. */
  private static final class Slot {
    final long[] ids;
    final long[] versions;
    int next;

    Slot(List<Held> leases) {
      ids = leases.stream().mapToLong(Held::leaseId).toArray();
      versions = leases.stream().mapToLong(Held::version).toArray();
    }
  }

  /** Acquires the leases, then renews them. */
  public Result run(long warmupNanos, long windowNanos, long drainNanos, PrintWriter progress)
      throws InterruptedException {
    return renew(acquire(progress), warmupNanos, windowNanos, drainNanos);
  }

  /** Renews {@code leases} (from {@link #acquire}) for warm-up + window, then reports the window. */
  Result renew(List<Held> leases, long warmupNanos, long windowNanos, long drainNanos)
      throws InterruptedException {
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
    Map<Outcome, Long> byOutcome = new TreeMap<>();
    refusals.forEach((o, n) -> byOutcome.put(o, n.get()));
    return new Result(leased.op(), inFlight, clients.size(), leases.size(), batchSize, windowNanos / 1e9,
        renewed.get(), refused.get(), failedBatches.get(), batches.get(), latency, byOutcome);
  }

  /** Sets the limits and acquires the leases, 256 at a time; throws if any is refused. */
  List<Held> acquire(PrintWriter progress) {
    RationClient admin = clients.get(0);
    long started = clock.getAsLong();
    int limits = (leaseCount + LEASES_PER_LIMIT - 1) / LEASES_PER_LIMIT;
    for (int l = 0; l < limits; l++) {
      leased.setLimit(admin, tenant, leased.op() + "-" + l, leaseDuration, grace);
    }
    String holder = "batch-" + ProcessHandle.current().pid() + "-";
    List<Held> out = new ArrayList<>(leaseCount);
    List<CompletableFuture<Held>> pending = new ArrayList<>();
    for (int i = 0; i < leaseCount; i++) {
      pending.add(leased.acquire(clients.get(i % clients.size()), tenant,
          leased.op() + "-" + i / LEASES_PER_LIMIT, holder + i));
      if (pending.size() == 256 || i == leaseCount - 1) {
        for (CompletableFuture<Held> f : pending) {
          out.add(f.join());
        }
        pending.clear();
      }
    }
    double seconds = (clock.getAsLong() - started) / 1e9;
    progress.printf(Locale.ROOT, "bench: %d leases acquired over %d limit(s) in %.1f s%n", out.size(), limits, seconds);
    if (seconds * 1_000 >= leaseDuration.toMillis()) {
      // The first leases may have expired before their first renewal: those are refused.
      progress.printf(Locale.ROOT, "bench: warning: acquiring took longer than a lease lives (%s); "
          + "expect LEASE_EXPIRED refusals, or give a longer --lease-duration%n",
          formatDuration(leaseDuration));
    }
    progress.flush();
    return out;
  }

  /**
   * A duration as --lease-duration takes it (1h, 2m, 30s, 250ms). The daemon's configuration
   * code has the same rendering; this module is a client and does not depend on the daemon.
   */
  static String formatDuration(Duration d) {
    long ms = d.toMillis();
    if (ms != 0 && ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms != 0 && ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    if (ms != 0 && ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }

  private void next(RationClient client, Slot slot, CountDownLatch stopped) {
    long sent = clock.getAsLong();
    if (sent - measureEnd >= 0) {
      stopped.countDown();
      return;
    }
    int n = Math.min(batchSize, slot.ids.length);
    int[] index = new int[n];
    long[] ids = new long[n];
    long[] versions = new long[n];
    for (int k = 0; k < n; k++) {
      int i = slot.next;
      slot.next = (slot.next + 1) % slot.ids.length;
      index[k] = i;
      ids[k] = slot.ids[i];
      versions[k] = slot.versions[i];
    }
    CompletableFuture<List<Answer>> call;
    try {
      call = leased.renew(client, ids, versions);
    } catch (RuntimeException e) {
      call = CompletableFuture.failedFuture(e);
    }
    call.whenComplete((answers, err) -> {
      long done = clock.getAsLong();
      boolean measured = sent - measureStart >= 0 && done - measureEnd < 0;
      if (err == null && answers.size() == n) {
        long ok = 0;
        for (int k = 0; k < n; k++) {
          Answer a = answers.get(k);
          if (a.outcome() == Outcome.SUCCESS) {
            ok++;
          } else if (measured) {
            refusals.computeIfAbsent(a.outcome(), o -> new AtomicLong()).incrementAndGet();
          }
          if (a.version() > 0) {
            slot.versions[index[k]] = a.version();
          }
        }
        if (measured) {
          renewed.addAndGet(ok);
          refused.addAndGet(n - ok);
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

  public static String table(Result r) {
    LatencySummary l = r.latency();
    return String.format(Locale.ROOT,
        "op            %s%nin-flight     %d batch(es) over %d connection(s)%n"
            + "leases        %d, %d renewals per batch%nwindow        %.1f s%n"
            + "renewed       %d (%.1f/s) in %d batches%nrefused       %d renewals %s%n"
            + "failed        %d batches%n"
            + "batch latency p50 %s  p90 %s  p99 %s  p99.9 %s  max %s%n",
        r.op(), r.inFlight(), r.clients(), r.leases(), r.batchSize(), r.windowSeconds(), r.renewed(),
        r.renewalsPerSecond(), r.batches(), r.refused(), r.refusals(), r.failedBatches(),
        LoadGenerator.millisText(l.p50Micros()), LoadGenerator.millisText(l.p90Micros()),
        LoadGenerator.millisText(l.p99Micros()), LoadGenerator.millisText(l.p999Micros()),
        LoadGenerator.millisText(l.maxMicros()));
  }

  public static String json(Result r) {
    LatencySummary l = r.latency();
    StringBuilder byOutcome = new StringBuilder("{");
    r.refusals().forEach((o, n) -> byOutcome.append(byOutcome.length() > 1 ? "," : "")
        .append('"').append(o.name()).append("\":").append(n));
    byOutcome.append('}');
    return String.format(Locale.ROOT,
        "{\"op\":\"%s\",\"inFlight\":%d,\"connections\":%d,\"leases\":%d,\"batchSize\":%d,"
            + "\"windowSeconds\":%.3f,\"renewed\":%d,\"renewedPerSecond\":%.1f,\"batches\":%d,"
            + "\"refused\":%d,\"refusals\":%s,\"failedBatches\":%d,"
            + "\"batchLatencyMicros\":{\"p50\":%d,\"p90\":%d,\"p99\":%d,\"p999\":%d,\"max\":%d}}",
        r.op(), r.inFlight(), r.clients(), r.leases(), r.batchSize(), r.windowSeconds(), r.renewed(),
        r.renewalsPerSecond(), r.batches(), r.refused(), byOutcome, r.failedBatches(), l.p50Micros(),
        l.p90Micros(), l.p99Micros(), l.p999Micros(), l.maxMicros());
  }
}
