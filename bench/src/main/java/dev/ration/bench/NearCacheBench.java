package dev.ration.bench;

import dev.ration.client.RationClient;
import dev.ration.client.ttl.Change;
import dev.ration.client.ttl.NearCache;
import dev.ration.client.ttl.TtlWatchListener;
import dev.ration.client.ttl.WriteResult;
import dev.ration.wire.Outcome;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * {@code ration bench --op near-cache}: what a near cache costs and how far behind it runs, on a
 * real cluster. A writer client fills {@code KEYS} keys of a namespace of its own; a near cache
 * on a second client reads them all once (loads), then:
 * <ul>
 *   <li><b>get</b>: gets answered from memory, timed in batches of {@code BATCH} (nanoseconds a
 *       get, median and p99 of the batches), beside {@code runs} plain {@code ttl().get} reads
 *       through the cluster;
 *   <li><b>delay</b>: {@code runs} puts of one key, one at a time, 20 ms apart; for each, the
 *       client instant the put was sent and acknowledged and the instant the cache's listener
 *       was told of its version. The commit lies between send and acknowledgement, so the delay
 *       from commit to notification lies between {@code told − acked} and {@code told − sent}.
 * </ul>
 * Bounded by {@code runs}, the batches count and {@code timeout} per wait.
 */
public final class NearCacheBench {
  static final int KEYS = 100;
  static final int BATCH = 1_000;
  static final int BATCHES = 2_000;

  /** Nanosecond samples of each measurement; a delay not told within the timeout is Long.MIN_VALUE. */
  public record Result(List<Long> memoryGetNanos, List<Long> clusterGetNanos,
      List<Long> toldAfterSent, List<Long> toldAfterAcked, List<Long> putNanos,
      List<Long> putNanosUnwatched, NearCache.Stats stats) {}

  private final RationClient writer;
  private final RationClient reader;
  private final LongSupplier clock;

  public NearCacheBench(RationClient writer, RationClient reader, LongSupplier clock) {
    this.writer = writer;
    this.reader = reader;
    this.clock = clock;
  }

  public Result run(int runs, Duration timeout, PrintWriter err) throws InterruptedException {
    String ns = "bench-near-" + ProcessHandle.current().pid() + "-" + System.nanoTime() % 100_000;
    byte[] value = "x".repeat(64).getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < KEYS; i++) {
      ok(writer.ttl().put(ns, "k" + i, value, Duration.ofMinutes(10)));
    }
    // The same paced puts before any watch runs: what a watch adds to a write, if anything.
    List<Long> unwatched = new ArrayList<>(runs);
    for (int i = 0; i < runs; i++) {
      long sent = clock.getAsLong();
      ok(writer.ttl().put(ns, "k0", value, Duration.ofMinutes(10)));
      unwatched.add(clock.getAsLong() - sent);
      TimeUnit.MILLISECONDS.sleep(20);
    }
    Map<Long, Long> toldAt = new ConcurrentHashMap<>();
    TtlWatchListener listener = (changes, through) -> {
      long now = clock.getAsLong();
      for (Change c : changes) {
        toldAt.putIfAbsent(c.version(), now);
      }
    };
    try (NearCache cache = reader.ttl().cached(ns, NearCache.Options.defaults()
        .withListener(listener))) {
      try {
        cache.awaitCurrent(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        throw new IllegalStateException("the near cache had no answer within " + timeout);
      }
      for (int i = 0; i < KEYS; i++) {
        cache.get("k" + i);
      }
      List<Long> memory = new ArrayList<>(BATCHES);
      long sink = 0;
      for (int b = 0; b < BATCHES; b++) {
        long start = clock.getAsLong();
        for (int i = 0; i < BATCH; i++) {
          sink += cache.get("k" + (i % KEYS)).map(e -> 1).orElse(0);
        }
        memory.add((clock.getAsLong() - start) / BATCH);
      }
      if (sink != (long) BATCH * BATCHES) {
        throw new IllegalStateException("memory gets missed: " + sink + " hits of "
            + (long) BATCH * BATCHES + "; " + cache.stats());
      }
      err.printf(Locale.ROOT, "near-cache: %d memory gets timed, %s%n", BATCH * BATCHES, cache.stats());
      err.flush();
      List<Long> cluster = new ArrayList<>(runs);
      for (int i = 0; i < runs; i++) {
        long start = clock.getAsLong();
        reader.ttl().get(ns, "k" + (i % KEYS));
        cluster.add(clock.getAsLong() - start);
      }
      List<Long> sentDelay = new ArrayList<>(runs);
      List<Long> ackedDelay = new ArrayList<>(runs);
      List<Long> puts = new ArrayList<>(runs);
      for (int i = 0; i < runs; i++) {
        long sent = clock.getAsLong();
        WriteResult w = ok(writer.ttl().put(ns, "k0", value, Duration.ofMinutes(10)));
        long acked = clock.getAsLong();
        puts.add(acked - sent);
        long deadline = acked + timeout.toNanos();
        Long told;
        while ((told = toldAt.get(w.version())) == null && clock.getAsLong() < deadline) {
          Thread.onSpinWait();
        }
        sentDelay.add(told == null ? Long.MIN_VALUE : told - sent);
        ackedDelay.add(told == null ? Long.MIN_VALUE : told - acked);
        TimeUnit.MILLISECONDS.sleep(20);
      }
      err.printf(Locale.ROOT, "near-cache: %d puts told, %s%n", runs, cache.stats());
      err.flush();
      return new Result(memory, cluster, sentDelay, ackedDelay, puts, unwatched, cache.stats());
    }
  }

  private static WriteResult ok(WriteResult w) {
    if (w.outcome() != Outcome.SUCCESS) {
      throw new IllegalStateException("put refused: " + w.outcome() + " " + w.message());
    }
    return w;
  }

  public static String table(Result r) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "%-34s %8s %12s %12s%n", "measurement", "samples",
        "median", "p99"));
    row(b, "near-cache get (memory), ns", r.memoryGetNanos(), 1);
    row(b, "ttl().get through the cluster, ms", r.clusterGetNanos(), 1e6);
    row(b, "put, no watch running, ms", r.putNanosUnwatched(), 1e6);
    row(b, "put, sent to acknowledged, ms", r.putNanos(), 1e6);
    row(b, "told after the put was sent, ms", r.toldAfterSent(), 1e6);
    row(b, "told after the put was acked, ms", r.toldAfterAcked(), 1e6);
    return b.toString();
  }

  public static String json(Result r) {
    return String.format(Locale.ROOT, "{\"op\":\"near-cache\",\"memoryGetNanos\":%s,"
            + "\"clusterGetMillis\":%s,\"putUnwatchedMillis\":%s,\"putMillis\":%s,"
            + "\"toldAfterSentMillis\":%s,\"toldAfterAckedMillis\":%s}",
        summary(r.memoryGetNanos(), 1), summary(r.clusterGetNanos(), 1e6),
        summary(r.putNanosUnwatched(), 1e6), summary(r.putNanos(), 1e6), summary(r.toldAfterSent(), 1e6),
        summary(r.toldAfterAcked(), 1e6));
  }

  private static void row(StringBuilder b, String name, List<Long> samples, double unit) {
    List<Long> s = samples.stream().filter(n -> n > Long.MIN_VALUE).sorted().toList();
    b.append(String.format(Locale.ROOT, "%-34s %8d %12.3f %12.3f%n", name, s.size(),
        s.isEmpty() ? Double.NaN : s.get(s.size() / 2) / unit,
        s.isEmpty() ? Double.NaN : s.get((int) Math.min(s.size() - 1, Math.ceil(s.size() * 0.99) - 1)) / unit));
  }

  private static String summary(List<Long> samples, double unit) {
    List<Long> s = samples.stream().filter(n -> n > Long.MIN_VALUE).sorted().toList();
    return String.format(Locale.ROOT, "{\"samples\":%d,\"median\":%.4f,\"p99\":%.4f}", s.size(),
        s.isEmpty() ? Double.NaN : s.get(s.size() / 2) / unit,
        s.isEmpty() ? Double.NaN : s.get((int) Math.min(s.size() - 1, Math.ceil(s.size() * 0.99) - 1)) / unit);
  }
}
