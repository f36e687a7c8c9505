package dev.ration.bench;

import dev.ration.client.SetLimitResult;
import dev.ration.client.LimitSpec;
import dev.ration.client.RationClient;
import dev.ration.client.limiter.LimiterOptions;
import dev.ration.client.limiter.RateLimiter;
import dev.ration.protocol.Response;
import dev.ration.wire.Outcome;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * {@code ration bench --op warm-start}: how long a service waits from {@code rateLimiter(...)}
 * to its first admitted request, through {@link RateLimiter#tryAcquire(long, Duration)}. Each
 * run creates a limit of its own first (so no run inherits tokens another returned), on a
 * client already connected, then times one limiter with default options and one whose first
 * acquire asks for the limit's whole rate and burst. Runs one after another; bounded by
 * {@code runs} and by the timeout of each wait.
 */
public final class WarmStartBench {
  static final long RATE_PER_SECOND = 1_000;
  static final long BURST = 100;

  /** Nanoseconds to the first admission per run, by variant; -1 when the wait timed out. */
  public record Result(List<Long> defaults, List<Long> demandAsked) {
    public int admitted() {
      return (int) (defaults.stream().filter(n -> n >= 0).count()
          + demandAsked.stream().filter(n -> n >= 0).count());
    }
  }

  private final RationClient client;
  private final String tenant;
  private final LongSupplier clock;

  public WarmStartBench(RationClient client, String tenant, LongSupplier clock) {
    this.client = client;
    this.tenant = tenant;
    this.clock = clock;
  }

  public Result run(int runs, Duration timeout, PrintWriter err) {
    List<Long> defaults = new ArrayList<>();
    List<Long> demandAsked = new ArrayList<>();
    String prefix = "warm-start-" + ProcessHandle.current().pid() + "-";
    for (int i = 0; i < runs; i++) {
      defaults.add(once(prefix + i + "-default", LimiterOptions.defaults(), timeout));
      demandAsked.add(once(prefix + i + "-demand",
          LimiterOptions.builder().demand(RATE_PER_SECOND, BURST).build(), timeout));
      err.printf(Locale.ROOT, "warm-start run %d: default %s, demand asked %s%n", i + 1,
          millis(defaults.get(i)), millis(demandAsked.get(i)));
      err.flush();
    }
    return new Result(defaults, demandAsked);
  }

  private long once(String resource, LimiterOptions options, Duration timeout) {
    SetLimitResult set = client.setLimit(LimitSpec.builder(tenant, resource)
        .ratePerSecond(RATE_PER_SECOND).burst(BURST).leaseDuration(Duration.ofSeconds(10))
        .grace(Duration.ofSeconds(1)).build());
    if (set.outcome() != Outcome.SUCCESS) {
      throw new IllegalStateException("setting limit " + tenant + "/" + resource + ": "
          + set.outcome() + " " + set.message());
    }
    long start = clock.getAsLong();
    try (RateLimiter limiter = client.rateLimiter(tenant, resource, "warm-start", options)) {
      boolean admitted = limiter.tryAcquire(1, timeout);
      return admitted ? clock.getAsLong() - start : -1;
    }
  }

  public static String table(Result r) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "%-22s %5s %10s %10s %10s %8s%n",
        "limiter options", "runs", "median ms", "min ms", "max ms", "timeouts"));
    row(b, "default", r.defaults());
    row(b, "demand(rate, burst)", r.demandAsked());
    return b.toString();
  }

  public static String json(Result r) {
    return "{\"op\":\"warm-start\",\"default\":" + summary(r.defaults()) + ",\"demandAsked\":"
        + summary(r.demandAsked()) + "}";
  }

  private static void row(StringBuilder b, String name, List<Long> nanos) {
    List<Long> ok = nanos.stream().filter(n -> n >= 0).sorted().toList();
    b.append(String.format(Locale.ROOT, "%-22s %5d %10s %10s %10s %8d%n", name, nanos.size(),
        ok.isEmpty() ? "-" : millis(median(ok)), ok.isEmpty() ? "-" : millis(ok.get(0)),
        ok.isEmpty() ? "-" : millis(ok.get(ok.size() - 1)), nanos.size() - ok.size()));
  }

  private static String summary(List<Long> nanos) {
    List<Long> ok = nanos.stream().filter(n -> n >= 0).sorted().toList();
    return String.format(Locale.ROOT, "{\"runs\":%d,\"timeouts\":%d,\"medianMillis\":%s,\"samplesMillis\":%s}",
        nanos.size(), nanos.size() - ok.size(), ok.isEmpty() ? "null" : millis(median(ok)),
        nanos.stream().map(WarmStartBench::millis).toList());
  }

  /** The median of sorted values (the mean of the middle two for an even count). */
  static long median(List<Long> sorted) {
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static String millis(long nanos) {
    return nanos < 0 ? "timeout" : String.format(Locale.ROOT, "%.1f", nanos / 1e6);
  }
}
