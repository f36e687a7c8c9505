package dev.ration.bench;

import dev.ration.client.RationClient;
import dev.ration.client.quota.Item;
import dev.ration.client.quota.QuotaClient;
import dev.ration.client.quota.QuotaDefinition;
import dev.ration.client.quota.QuotaLimiter;
import dev.ration.client.quota.QuotaLimiterOptions;
import dev.ration.client.quota.ReserveResult;
import dev.ration.client.quota.SetQuotaResult;
import dev.ration.wire.Outcome;
import dev.ration.wire.Window;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;

/**
 * `ration bench --op quota-reserve | quota-budget`: one request stream (quota checks of 1 unit of
 * {@code calls} at {@code bench/t<caller mod P>/p}, a RATE quota by the hour at all three levels,
 * high enough that nothing is refused) admitted two ways, for side-by-side runs on one cluster.
 *
 * <ul>
 *   <li>{@code quota-reserve}: each of {@code inFlight} callers makes one blocking
 *       {@code tryReserve} (the admission decision, timed) then {@code complete} (not timed),
 *       through the public client API, as a service checking a quota per request does today.
 *   <li>{@code quota-budget}: each caller checks {@code QuotaLimiter.tryAcquire} (timed, in
 *       nanoseconds) on one limiter per connection; the limiter's grants and renewals are the
 *       only requests the cluster sees.
 * </ul>
 *
 * <p>Callers run on their own threads, bounded by the window; the budget callers never sleep, so
 * on a small machine they compete with the cluster for CPU: the decisions per second are what
 * the callers managed, not a bound of the limiter. Counted: decisions completed in the window
 * ({@code ok} admitted), and in the budget mode the renewal rounds and grants sent.
 */
public final class QuotaBudgetBench {
  /** What a run measured. Latencies in nanoseconds. */
  public record Result(String op, int inFlight, int clients, double windowSeconds, long ok,
      long rejected, long errors, long warmupCompletions, long p50Nanos, long p90Nanos,
      long p99Nanos, long p999Nanos, long maxNanos, long renewalRounds) {
    double perSecond() {
      return ok / windowSeconds;
    }
  }

  private static final Duration TTL = Duration.ofSeconds(30);
  private static final long LIMIT = 1_000_000_000_000L;

  private final List<RationClient> clients;
  private final int inFlight;
  private final int projects;
  private final LongSupplier clock;

  public QuotaBudgetBench(List<RationClient> clients, int inFlight, int projects, LongSupplier clock) {
    this.clients = List.copyOf(clients);
    this.inFlight = inFlight;
    this.projects = projects;
    this.clock = clock;
  }

  static String scope(int caller, int projects) {
    return "bench/t" + (caller % projects) + "/p";
  }

  /** Sets the catalog: RATE by the hour at bench, bench/t*, bench/t* /p. */
  public void setUp(PrintWriter progress) {
    QuotaClient q = clients.get(0).quotas();
    set(q, "bench");
    for (int t = 0; t < projects; t++) {
      set(q, "bench/t" + t);
      set(q, "bench/t" + t + "/p");
    }
    progress.printf(Locale.ROOT, "bench: RATE quotas on 'calls' at bench, bench/t0..t%d, bench/t*/p%n",
        projects - 1);
    progress.flush();
  }

  private static void set(QuotaClient q, String scope) {
    SetQuotaResult r = q.setQuota(QuotaDefinition.rate(scope, "calls", LIMIT, Window.HOUR)
        .unit("calls").actor("bench").reason("benchmark").build());
    if (r.outcome() != Outcome.SUCCESS) {
      throw new IllegalStateException("bench: quota " + scope + ": " + r.outcome() + " " + r.message());
    }
  }

  /** One caller's books; merged after the run. */
  private static final class Books {
    final Histogram nanos = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    long ok;
    long rejected;
    long errors;
    long warmup;
  }

  public Result run(boolean budgets, long warmupNanos, long windowNanos, PrintWriter progress)
      throws InterruptedException {
    setUp(progress);
    List<QuotaLimiter> limiters = new ArrayList<>();
    if (budgets) {
      for (RationClient c : clients) {
        limiters.add(c.quotaLimiter("bench-" + limiters.size(),
            QuotaLimiterOptions.defaults().withAmounts(10_000, 10_000)));
      }
      for (int i = 0; i < inFlight; i++) {
        QuotaLimiter l = limiters.get(i % limiters.size());
        if (!l.awaitReady(scope(i, projects), "calls", Duration.ofSeconds(30))) {
          throw new IllegalStateException("bench: no budget for " + scope(i, projects) + " within 30 s");
        }
      }
    }
    long start = clock.getAsLong();
    long measureStart = start + warmupNanos;
    long measureEnd = measureStart + windowNanos;
    List<Books> books = new ArrayList<>();
    List<Thread> callers = new ArrayList<>();
    for (int i = 0; i < inFlight; i++) {
      Books b = new Books();
      books.add(b);
      String scope = scope(i, projects);
      QuotaClient q = clients.get(i % clients.size()).quotas();
      QuotaLimiter l = budgets ? limiters.get(i % limiters.size()) : null;
      Thread t = new Thread(() -> {
        // Bounded by the window; the reserve loop also by its calls' deadlines.
        while (true) {
          long sent = clock.getAsLong();
          if (sent - measureEnd >= 0) {
            return;
          }
          boolean admitted;
          long reservationId = 0;
          boolean failed = false;
          if (budgets) {
            admitted = l.tryAcquire(scope, "calls", 1);
          } else {
            ReserveResult r = null;
            try {
              r = q.tryReserve(scope, List.of(new Item("calls", 1)), 0, TTL);
            } catch (RuntimeException e) {
              failed = true;
            }
            admitted = r != null && r.succeeded();
            reservationId = admitted ? r.reservationId() : 0;
          }
          long done = clock.getAsLong();
          if (sent - measureStart >= 0 && done - measureEnd < 0) {
            if (failed) {
              b.errors++;
            } else if (admitted) {
              b.ok++;
            } else {
              b.rejected++;
            }
            if (!failed) {
              b.nanos.recordValue(Math.max(1, Math.min(done - sent, b.nanos.getHighestTrackableValue())));
            }
          } else {
            b.warmup++;
          }
          if (reservationId != 0) {
            try {
              q.complete(reservationId, List.of(1L));
            } catch (RuntimeException e) {
              // Expires at its TTL; the next reserve is unaffected.
            }
          }
        }
      }, "quota-caller-" + i);
      t.setDaemon(true);
      callers.add(t);
    }
    callers.forEach(Thread::start);
    for (Thread t : callers) {
      t.join(TimeUnit.NANOSECONDS.toMillis(warmupNanos + windowNanos) + 60_000);
    }
    long rounds = 0;
    for (QuotaLimiter l : limiters) {
      rounds += l.renewalRounds();
      l.close();
    }
    Histogram all = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    long ok = 0;
    long rejected = 0;
    long errors = 0;
    long warmup = 0;
    for (Books b : books) {
      all.add(b.nanos);
      ok += b.ok;
      rejected += b.rejected;
      errors += b.errors;
      warmup += b.warmup;
    }
    boolean empty = all.getTotalCount() == 0;
    return new Result(budgets ? "quota-budget" : "quota-reserve", inFlight, clients.size(),
        windowNanos / 1e9, ok, rejected, errors, warmup,
        empty ? 0 : all.getValueAtPercentile(50), empty ? 0 : all.getValueAtPercentile(90),
        empty ? 0 : all.getValueAtPercentile(99), empty ? 0 : all.getValueAtPercentile(99.9),
        empty ? 0 : all.getMaxValue(), rounds);
  }

  public static String table(Result r) {
    return String.format(Locale.ROOT,
        "op            %s (1 unit at bench/t*/p, counted at 3 levels)%n"
            + "in-flight     %d over %d connection(s)%nwindow        %.1f s%n"
            + "admitted      %d (%.1f/s)%nrejected      %d%nerrors        %d%n"
            + "decision      p50 %s  p90 %s  p99 %s  p99.9 %s  max %s%n"
            + "renewal rounds %d%n",
        r.op(), r.inFlight(), r.clients(), r.windowSeconds(), r.ok(), r.perSecond(), r.rejected(),
        r.errors(), time(r.p50Nanos()), time(r.p90Nanos()), time(r.p99Nanos()),
        time(r.p999Nanos()), time(r.maxNanos()), r.renewalRounds());
  }

  private static String time(long nanos) {
    return nanos < 100_000 ? nanos + "ns" : String.format(Locale.ROOT, "%.2fms", nanos / 1e6);
  }

  public static String json(Result r) {
    return String.format(Locale.ROOT,
        "{\"op\":\"%s\",\"inFlight\":%d,\"connections\":%d,\"windowSeconds\":%.3f,\"ok\":%d,"
            + "\"okPerSecond\":%.1f,\"rejected\":%d,\"errors\":%d,\"warmupCompletions\":%d,"
            + "\"latencyNanos\":{\"p50\":%d,\"p90\":%d,\"p99\":%d,\"p999\":%d,\"max\":%d},"
            + "\"latencyMicros\":{\"p50\":%d,\"p90\":%d,\"p99\":%d,\"p999\":%d,\"max\":%d},"
            + "\"renewalRounds\":%d}",
        r.op(), r.inFlight(), r.clients(), r.windowSeconds(), r.ok(), r.perSecond(), r.rejected(),
        r.errors(), r.warmupCompletions(), r.p50Nanos(), r.p90Nanos(), r.p99Nanos(),
        r.p999Nanos(), r.maxNanos(), r.p50Nanos() / 1000, r.p90Nanos() / 1000,
        r.p99Nanos() / 1000, r.p999Nanos() / 1000, r.maxNanos() / 1000, r.renewalRounds());
  }
}
