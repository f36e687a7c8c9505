package dev.ration.bench;

import dev.ration.client.quota.Item;
import dev.ration.client.quota.QuotaDefinition;
import dev.ration.client.quota.SetQuotaResult;
import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;

import dev.ration.client.RationClient;
import dev.ration.wire.Outcome;
import dev.ration.protocol.QuotaRequest;
import dev.ration.protocol.QuotaResponse;
import dev.ration.client.quota.QuotaClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;

/**
 * `ration bench --op reserve`: a closed loop of checkAndReserve ({@code inFlight} slots, each
 * with one request outstanding). Each slot reserves 1 unit of {@code jobs} at
 * {@code bench/t<slot mod P>/p} ({@code --reserve-projects P}, default 8) — three levels, each with a catalog entry, so every reserve is
 * checked at every level — then completes it (not measured) before its next reserve, so the
 * state stays small and the loop is the full lifecycle. Reported: reserves per second and the
 * reserve latency.
 *
 * <p>Threads: slots complete on the clients' event-loop threads; latencies go to one
 * synchronized HdrHistogram (microseconds); the calling thread waits, bounded by the window
 * plus the request timeout.
 */
public final class ReserveBench {
  public record Result(int inFlight, int clients, double windowSeconds, long ok, long rejected,
      long errors, LatencySummary latency) {
    double perSecond() {
      return ok / windowSeconds;
    }
  }

  private static final Duration TTL = Duration.ofSeconds(30);

  private final List<RationClient> clients;
  private final int inFlight;
  /** Projects bench/t0/p .. bench/t(P-1)/p; slot i reserves on project i mod P. */
  private final int projects;
  private final LongSupplier clock;
  private final Histogram histogram = Accounting.newHistogram();
  private final AtomicLong ok = new AtomicLong();
  private final AtomicLong rejected = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private volatile long measureStart;
  private volatile long measureEnd;

  public ReserveBench(List<RationClient> clients, int inFlight, int projects, LongSupplier clock) {
    this.clients = List.copyOf(clients);
    this.inFlight = inFlight;
    this.projects = projects;
    this.clock = clock;
  }

  public Result run(long warmupNanos, long windowNanos, long drainNanos, PrintWriter progress)
      throws InterruptedException {
    QuotaClient setup = clients.get(0).quotas();
    set(setup, "bench");
    for (int t = 0; t < projects; t++) {
      set(setup, "bench/t" + t);
      set(setup, "bench/t" + t + "/p");
    }
    progress.printf(Locale.ROOT, "bench: quotas set at bench, bench/t0..t%d, bench/t*/p%n", projects - 1);
    progress.flush();
    long start = clock.getAsLong();
    measureStart = start + warmupNanos;
    measureEnd = measureStart + windowNanos;
    CountDownLatch stopped = new CountDownLatch(inFlight);
    for (int i = 0; i < inFlight; i++) {
      next(clients.get(i % clients.size()).quotas(), "bench/t" + (i % projects) + "/p", stopped);
    }
    stopped.await(warmupNanos + windowNanos + drainNanos, TimeUnit.NANOSECONDS);
    LatencySummary latency;
    synchronized (histogram) {
      latency = LatencySummary.of(histogram);
    }
    return new Result(inFlight, clients.size(), windowNanos / 1e9, ok.get(), rejected.get(),
        errors.get(), latency);
  }

  private static void set(QuotaClient q, String scope) {
    SetQuotaResult r = q.setQuota(QuotaDefinition.concurrent(scope, "jobs", 1_000_000_000L)
        .unit("jobs").actor("bench").reason("benchmark").build());
    if (r.outcome() != Outcome.SUCCESS) {
      throw new IllegalStateException("bench: quota " + scope + ": " + r.outcome() + " " + r.message());
    }
  }

  private void next(QuotaClient q, String scope, CountDownLatch stopped) {
    long sent = clock.getAsLong();
    if (sent - measureEnd >= 0) {
      stopped.countDown();
      return;
    }
    q.tryReserveAsync(scope, List.of(new Item("jobs", 1)), 0, TTL)
        .whenComplete((reply, err) -> {
          long done = clock.getAsLong();
          boolean granted = err == null && reply.outcome() == Outcome.SUCCESS;
          if (sent - measureStart >= 0 && done - measureEnd < 0) {
            if (err != null) {
              errors.incrementAndGet();
            } else if (granted) {
              ok.incrementAndGet();
            } else {
              rejected.incrementAndGet();
            }
            synchronized (histogram) {
              histogram.recordValue(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMicros(done - sent),
                  histogram.getHighestTrackableValue())));
            }
          }
          CompletableFuture<?> settle = granted
              ? q.completeAsync(reply.reservationId(), List.of(1L))
              : CompletableFuture.completedFuture(null);
          // Next reserve after the settlement, off the completing thread's stack.
          settle.whenComplete((s, e) -> CompletableFuture.runAsync(() -> next(q, scope, stopped)));
        });
  }

  public static String table(Result r) {
    LatencySummary l = r.latency();
    return String.format(Locale.ROOT,
        "op            reserve (3 levels; each followed by complete)%nin-flight     %d over %d connection(s)%n"
            + "window        %.1f s%nok            %d (%.1f/s)%nrejected      %d%nerrors        %d%n"
            + "latency       p50 %s  p90 %s  p99 %s  p99.9 %s  max %s%n",
        r.inFlight(), r.clients(), r.windowSeconds(), r.ok(), r.perSecond(), r.rejected(), r.errors(),
        LoadGenerator.millisText(l.p50Micros()), LoadGenerator.millisText(l.p90Micros()),
        LoadGenerator.millisText(l.p99Micros()), LoadGenerator.millisText(l.p999Micros()),
        LoadGenerator.millisText(l.maxMicros()));
  }

  public static String json(Result r) {
    LatencySummary l = r.latency();
    return String.format(Locale.ROOT,
        "{\"op\":\"reserve\",\"inFlight\":%d,\"connections\":%d,\"windowSeconds\":%.3f,\"ok\":%d,"
            + "\"okPerSecond\":%.1f,\"rejected\":%d,\"errors\":%d,"
            + "\"latencyMicros\":{\"p50\":%d,\"p90\":%d,\"p99\":%d,\"p999\":%d,\"max\":%d}}",
        r.inFlight(), r.clients(), r.windowSeconds(), r.ok(), r.perSecond(), r.rejected(), r.errors(),
        l.p50Micros(), l.p90Micros(), l.p99Micros(), l.p999Micros(), l.maxMicros());
  }
}
