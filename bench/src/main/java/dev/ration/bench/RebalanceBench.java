package dev.ration.bench;

import dev.ration.client.LimitSpec;
import dev.ration.client.RationClient;
import dev.ration.client.SetLimitResult;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.client.limiter.RateLimiter;
import dev.ration.client.slots.LeasedSlots;
import dev.ration.client.transport.RawClient;
import dev.ration.wire.Mode;
import dev.ration.wire.Outcome;
import dev.ration.wire.Policy;
import dev.ration.wire.lease.Limit;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * {@code ration bench --op rebalance}: how fast capacity follows demand from one region to
 * another on a running cluster, for rate shares and for concurrency slots. Two regions, each
 * with its own {@link RationClient} (its own connection), hold leases on one fair-share limit:
 * region A is hot and region B cold for {@code settle}, then all demand moves to B; the run
 * watches for {@code observe} more.
 *
 * <p><b>Rate.</b> Each region is a real {@link RateLimiter} with default options, offered
 * {@code 1.2·R} requests/s when hot and {@code 0.02·R} when cold, one permit each, paced every
 * millisecond on its own thread. Every admission is counted in its millisecond. Reported: the
 * time from the move until B admitted at least 90 % of R over the trailing 200 ms, in
 * milliseconds and lease durations; and the excess, the most admissions in any window of
 * length T (0.1, 0.2, 0.5, 1, 2, 3, 5 s, sliding by 1 ms, both regions together) minus
 * {@code R·T + B}, which the ledger's bound says is never positive.
 *
 * <p><b>Slots.</b> Each region is a real {@link LeasedSlots} (W = C) under a minimal pool on
 * its own thread: jobs of {@code jobMillis} arrive at {@code 1.2·C / job} per second when hot
 * (enough to keep C running, with a queue) and 1/s when cold, wait in a queue of 100, start
 * while fewer than {@code permits()} run, and the pool reports its running and queued jobs
 * every millisecond. Reported: the time until B ran at
 * least 90 % of C on average over 200 ms, and the most jobs running in both regions at once
 * (never above C).
 *
 * <p>Bounded: each phase runs {@code settle + observe} of wall-clock time, once per run.
 */
public final class RebalanceBench {
  static final int WINDOW_MILLIS = 200;
  static final long[] EXCESS_WINDOWS_MILLIS = {100, 200, 500, 1_000, 2_000, 3_000, 5_000};

  /** One run of one phase: times from the move (ms, -1 if never), and the bound check. */
  record Phase(String kind, long toNinetyMillis, long shareNinetyMillis, long excess,
      long maxTogether, long cap, long admittedA, long admittedB) {}

  public record Result(long rate, long burst, long concurrency, long leaseMillis, long settleMillis,
      long observeMillis, List<Phase> rate90, List<Phase> slots90) {}

  private final RationClient setup;
  private final RationClient regionA;
  private final RationClient regionB;
  private final String tenant;
  private final long rate;
  private final long burst;
  private final long concurrency;
  private final Duration lease;
  private final long jobMillis;
  private final LongSupplier clock;

  public RebalanceBench(RationClient setup, RationClient regionA, RationClient regionB, String tenant,
      long rate, long burst, long concurrency, Duration lease, long jobMillis, LongSupplier clock) {
    this.setup = setup;
    this.regionA = regionA;
    this.regionB = regionB;
    this.tenant = tenant;
    this.rate = rate;
    this.burst = burst;
    this.concurrency = concurrency;
    this.lease = lease;
    this.jobMillis = jobMillis;
    this.clock = clock;
  }

  public Result run(int runs, Duration settle, Duration observe, boolean doRate, boolean doSlots, PrintWriter err)
      throws InterruptedException {
    List<Phase> rates = new ArrayList<>();
    List<Phase> slots = new ArrayList<>();
    String prefix = "rebalance-" + ProcessHandle.current().pid() + "-";
    for (int i = 0; i < runs; i++) {
      if (doRate) {
        Phase p = ratePhase(prefix + "rate-" + i, settle.toMillis(), observe.toMillis());
        rates.add(p);
        report(err, i, p);
      }
      if (doSlots) {
        Phase p = slotPhase(prefix + "slots-" + i, settle.toMillis(), observe.toMillis());
        slots.add(p);
        report(err, i, p);
      }
    }
    return new Result(rate, burst, concurrency, lease.toMillis(), settle.toMillis(),
        observe.toMillis(), rates, slots);
  }

  private void report(PrintWriter err, int run, Phase p) {
    err.printf(Locale.ROOT, "rebalance run %d %s: B at 90%% after %s ms (%.2f L), share at 90%% after %s ms, "
            + "excess %d, most at once %d of %d%n", run + 1, p.kind(), p.toNinetyMillis(),
        p.toNinetyMillis() / (double) lease.toMillis(), p.shareNinetyMillis(), p.excess(), p.maxTogether(), p.cap());
    err.flush();
  }

  // ------------------------------------------------------------------ rate

  private Phase ratePhase(String resource, long settleMillis, long observeMillis) throws InterruptedException {
    SetLimitResult set = setup.setLimit(LimitSpec.builder(tenant, resource).ratePerSecond(rate).burst(burst)
        .mode(Mode.HARD).policy(Policy.FAIR_SHARE).leaseDuration(lease).grace(Duration.ofSeconds(1)).build());
    if (set.outcome() != Outcome.SUCCESS) {
      throw new IllegalStateException("setting limit " + tenant + "/" + resource + ": " + set.outcome()
          + " " + set.message());
    }
    int total = (int) (settleMillis + observeMillis);
    int[] a = new int[total];
    int[] b = new int[total];
    long[] shareB = new long[total];
    long hot = rate * 6 / 5;
    long cold = Math.max(1, rate / 50);
    try (RateLimiter la = regionA.rateLimiter(tenant, resource, "region-a");
        RateLimiter lb = regionB.rateLimiter(tenant, resource, "region-b")) {
      la.awaitReady(Duration.ofSeconds(10));
      lb.awaitReady(Duration.ofSeconds(10));
      long start = clock.getAsLong();
      Thread ta = driver("rebalance-a", start, total, ms -> ms < settleMillis ? hot : cold, la, a, null);
      Thread tb = driver("rebalance-b", start, total, ms -> ms < settleMillis ? cold : hot, lb, b, shareB);
      ta.join();
      tb.join();
    }
    long excess = Long.MIN_VALUE;
    for (long w : EXCESS_WINDOWS_MILLIS) {
      if (w <= total) {
        excess = Math.max(excess, maxInWindow(a, b, (int) w) - (rate * w / 1_000 + burst));
      }
    }
    long need = rate * WINDOW_MILLIS * 9 / 10 / 1_000;
    long share = -1;
    for (int ms = (int) settleMillis; ms < total; ms++) {
      if (shareB[ms] * 10 >= rate * 9) {
        share = ms - settleMillis;
        break;
      }
    }
    return new Phase("rate", firstSustained(b, (int) settleMillis, WINDOW_MILLIS, need), share,
        Math.max(0, excess), maxInWindow(a, b, 1_000), rate + burst, sum(a), sum(b));
  }

  /** A thread offering {@code offered(ms)} requests/s to {@code limiter}, paced every millisecond. */
  private Thread driver(String name, long start, int total, java.util.function.LongUnaryOperator offered,
      RateLimiter limiter, int[] admitted, long[] share) {
    Thread t = new Thread(() -> {
      double due = 0;
      long last = start;
      while (true) {
        long now = clock.getAsLong();
        int ms = (int) ((now - start) / 1_000_000L);
        if (ms >= total) {
          return;
        }
        due += offered.applyAsLong(ms) * (now - last) / 1e9;
        last = now;
        while (due >= 1) {
          due -= 1;
          if (limiter.tryAcquire(1)) {
            admitted[ms]++;
          }
        }
        if (share != null) {
          share[ms] = limiter.lease().map(l -> l.rateShare()).orElse(0L);
        }
        LockSupport.parkNanos(1_000_000L);
      }
    }, name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  // ------------------------------------------------------------------ slots

  private Phase slotPhase(String resource, long settleMillis, long observeMillis) throws InterruptedException {
    Limit limit = new Limit(tenant, resource, 0, 0, Mode.HARD, lease.toMillis(), 1_000, 0, Policy.FAIR_SHARE, 0);
    Response r = RawClient.of(setup).call(new Request.SetLimitConcurrency(limit, concurrency)).join();
    if (!(r instanceof Response.SlotLimitReply s) || s.outcome() != Outcome.SUCCESS) {
      throw new IllegalStateException("setting the concurrency of " + tenant + "/" + resource + ": " + r);
    }
    int total = (int) (settleMillis + observeMillis);
    int[] a = new int[total];
    int[] b = new int[total];
    long[] shareB = new long[total];
    // Hot: enough arrivals to keep C jobs running; cold: one a second.
    double hot = concurrency * 1_200.0 / jobMillis;
    double cold = 1;
    try (LeasedSlots sa = regionA.leasedSlots(tenant, resource, "region-a", (int) concurrency);
        LeasedSlots sb = regionB.leasedSlots(tenant, resource, "region-b", (int) concurrency)) {
      long start = clock.getAsLong();
      Thread ta = pool("rebalance-pool-a", start, total, ms -> ms < settleMillis ? hot : cold, sa, a, null);
      Thread tb = pool("rebalance-pool-b", start, total, ms -> ms < settleMillis ? cold : hot, sb, b, shareB);
      ta.join();
      tb.join();
    }
    long together = 0;
    for (int ms = 0; ms < total; ms++) {
      together = Math.max(together, a[ms] + b[ms]);
    }
    long need = concurrency * WINDOW_MILLIS * 9 / 10;
    long share = -1;
    for (int ms = (int) settleMillis; ms < total; ms++) {
      if (shareB[ms] * 10 >= concurrency * 9) {
        share = ms - settleMillis;
        break;
      }
    }
    return new Phase("slots", firstSustained(b, (int) settleMillis, WINDOW_MILLIS, need), share,
        Math.max(0, together - concurrency), together, concurrency, sum(a), sum(b));
  }

  /**
   * A minimal pool on one thread: jobs arrive at {@code arrivals(ms)} per second into a queue of
   * 100, start while fewer than the source's permits run, end after {@code jobMillis}; the
   * running count is recorded per millisecond (the highest within it) and reported each one. A
   * millisecond in which the thread did not run (a loaded machine) is recorded with the jobs
   * that had not been seen to end: an upper bound on what ran then.
   */
  private Thread pool(String name, long start, int total, java.util.function.LongFunction<Double> arrivals,
      LeasedSlots slots, int[] running, long[] share) {
    Thread t = new Thread(() -> {
      ArrayDeque<Long> ends = new ArrayDeque<>();
      int seen = -1;
      int queued = 0;
      double due = 0;
      long last = start;
      while (true) {
        long now = clock.getAsLong();
        int ms = (int) ((now - start) / 1_000_000L);
        if (ms >= total) {
          return;
        }
        for (int gap = seen + 1; gap < ms; gap++) {
          running[gap] = ends.size(); // the jobs that ran until this thread got a core again
          if (share != null) {
            share[gap] = seen < 0 ? 0 : share[seen];
          }
        }
        while (!ends.isEmpty() && ends.peekFirst() <= now) {
          ends.pollFirst();
        }
        due += arrivals.apply(ms) * (now - last) / 1e9;
        last = now;
        while (due >= 1) {
          due -= 1;
          if (queued < 100) {
            queued++;
          }
        }
        while (queued > 0 && ends.size() < slots.permits()) {
          queued--;
          ends.addLast(now + jobMillis * 1_000_000L);
        }
        running[ms] = Math.max(running[ms], ends.size());
        if (share != null) {
          share[ms] = slots.share();
        }
        seen = ms;
        slots.reportUsage(ends.size(), queued);
        LockSupport.parkNanos(1_000_000L);
      }
    }, name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  // ------------------------------------------------------------------ figures

  /** The first ms after {@code from} at which the trailing {@code window} ms summed at least {@code need}. */
  static long firstSustained(int[] series, int from, int window, long need) {
    long sum = 0;
    for (int ms = from; ms < series.length; ms++) {
      sum += series[ms];
      if (ms - window >= from) {
        sum -= series[ms - window];
      }
      if (ms - from + 1 >= window && sum >= need) {
        return ms + 1 - from;
      }
    }
    return -1;
  }

  /** The most admissions of both series together in any window of {@code window} ms. */
  static long maxInWindow(int[] a, int[] b, int window) {
    long sum = 0;
    long max = 0;
    for (int ms = 0; ms < a.length; ms++) {
      sum += a[ms] + b[ms];
      if (ms >= window) {
        sum -= a[ms - window] + b[ms - window];
      }
      max = Math.max(max, sum);
    }
    return max;
  }

  private static long sum(int[] s) {
    return Arrays.stream(s).asLongStream().sum();
  }

  static long median(List<Long> values) {
    if (values.isEmpty()) {
      return -1;
    }
    List<Long> sorted = new ArrayList<>(values);
    sorted.sort(null);
    return sorted.get(sorted.size() / 2);
  }

  public static String table(Result r) {
    StringBuilder s = new StringBuilder();
    s.append(String.format(Locale.ROOT,
        "rebalance: R %d/s, B %d, C %d, lease %d ms, fair-share; all demand moves from A to B after %d ms, watched %d ms%n",
        r.rate(), r.burst(), r.concurrency(), r.leaseMillis(), r.settleMillis(), r.observeMillis()));
    s.append(String.format(Locale.ROOT, "%-6s %4s %12s %9s %14s %7s %14s%n",
        "kind", "runs", "B at 90% ms", "in L", "share 90% ms", "excess", "most at once"));
    for (List<Phase> phases : List.of(r.rate90(), r.slots90())) {
      if (phases.isEmpty()) {
        continue;
      }
      long t = median(phases.stream().map(Phase::toNinetyMillis).toList());
      long sh = median(phases.stream().map(Phase::shareNinetyMillis).toList());
      long excess = phases.stream().mapToLong(Phase::excess).max().orElse(0);
      long most = phases.stream().mapToLong(Phase::maxTogether).max().orElse(0);
      s.append(String.format(Locale.ROOT, "%-6s %4d %12d %9.2f %14d %7d %9d of %d%n", phases.get(0).kind(),
          phases.size(), t, t / (double) r.leaseMillis(), sh, excess, most, phases.get(0).cap()));
      StringBuilder each = new StringBuilder();
      for (Phase p : phases) {
        each.append(each.length() == 0 ? "" : ", ").append(p.toNinetyMillis());
      }
      s.append("       runs, B at 90% ms: ").append(each).append('\n');
    }
    s.append("(rate: 'most at once' is the most admitted in any 1 s against R + B; median over runs; "
        + "excess the largest over runs and windows)\n");
    return s.toString();
  }

  public static String json(Result r) {
    StringBuilder s = new StringBuilder();
    s.append(String.format(Locale.ROOT,
        "{\"op\":\"rebalance\",\"rate\":%d,\"burst\":%d,\"concurrency\":%d,\"leaseMillis\":%d,\"settleMillis\":%d,\"observeMillis\":%d",
        r.rate(), r.burst(), r.concurrency(), r.leaseMillis(), r.settleMillis(), r.observeMillis()));
    for (List<Phase> phases : List.of(r.rate90(), r.slots90())) {
      if (phases.isEmpty()) {
        continue;
      }
      s.append(",\"").append(phases.get(0).kind()).append("\":[");
      for (int i = 0; i < phases.size(); i++) {
        Phase p = phases.get(i);
        s.append(i == 0 ? "" : ",").append(String.format(Locale.ROOT,
            "{\"toNinetyMillis\":%d,\"shareNinetyMillis\":%d,\"excess\":%d,\"maxTogether\":%d,\"cap\":%d,\"admittedA\":%d,\"admittedB\":%d}",
            p.toNinetyMillis(), p.shareNinetyMillis(), p.excess(), p.maxTogether(), p.cap(), p.admittedA(), p.admittedB()));
      }
      s.append(']');
    }
    return s.append('}').toString();
  }
}
