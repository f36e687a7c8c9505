package dev.ration.bench;

import java.time.Duration;
import dev.ration.client.ttl.WriteResult;
import dev.ration.client.ttl.NamespaceSpec;
import dev.ration.client.ttl.NamespaceResult;
import dev.ration.wire.CapacityPolicy;

import dev.ration.client.RationClient;
import dev.ration.client.LimitSpec;
import dev.ration.client.quota.QuotaClient;
import dev.ration.client.quota.QuotaDefinition;
import dev.ration.wire.Window;
import dev.ration.wire.Outcome;
import dev.ration.client.ttl.TtlEntries;
import java.io.PrintWriter;
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
 * `ration bench --op ttl-put|ttl-get|limit-get`: a closed loop of one kind of single-request
 * operation over {@code keys} keys ({@code inFlight} slots, each with one request outstanding; a
 * completion issues the next): TTL puts or linearizable TTL gets in namespace {@code namespace},
 * or linearizable reads of limits (tenant {@code namespace}, resources {@code r0}, {@code r1},
 * ...). ttl-get first puts every key (not measured) with a TTL longer than the run, and
 * limit-get first sets every limit, so every measured read finds its key.
 *
 * <p>Threads: slots complete on the clients' event-loop threads; latencies go to one
 * synchronized HdrHistogram (microseconds, 3 digits); the calling thread waits, bounded by
 * the window plus the request timeout. The lease workloads (LoadGenerator) are untouched.
 */
public final class KeyLoopBench {
  /** Result of a run, for the report. */
  public record Result(String op, int inFlight, int clients, int keys, int valueBytes, long ttlMillis,
      double windowSeconds, long warmupCompletions, long ok, long rejected, long errors,
      LatencySummary latency) {
    double perSecond() {
      return ok / windowSeconds;
    }
  }

  private final List<RationClient> clients;
  private final Workload op;
  private final boolean put;
  private final String namespace;
  private final int inFlight;
  private final int keys;
  private final byte[] value;
  private final long ttlMillis;
  private final LongSupplier clock;
  private final Histogram histogram = Accounting.newHistogram();
  private final AtomicLong ok = new AtomicLong();
  private final AtomicLong rejected = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private final AtomicLong warmupCompletions = new AtomicLong();
  private final AtomicLong cursor = new AtomicLong();
  private volatile long measureStart;
  private volatile long measureEnd;

  public KeyLoopBench(List<RationClient> clients, Workload op, String namespace, int inFlight, int keys,
      int valueBytes, long ttlMillis, LongSupplier clock) {
    if (!op.isKeyLoop()) {
      throw new IllegalArgumentException(op + " is not a key loop");
    }
    this.clients = List.copyOf(clients);
    this.op = op;
    this.put = op == Workload.TTL_PUT;
    this.namespace = namespace;
    this.inFlight = inFlight;
    this.keys = keys;
    this.value = new byte[valueBytes];
    for (int i = 0; i < valueBytes; i++) {
      value[i] = (byte) ('a' + i % 26);
    }
    this.ttlMillis = ttlMillis;
    this.clock = clock;
  }

  /** Prepares the keys (see the class comment), runs warm-up then the window. */
  public Result run(long warmupNanos, long windowNanos, long drainNanos, PrintWriter progress)
      throws InterruptedException {
    if (op == Workload.LIMIT_GET) {
      setLimits(progress);
    } else if (op == Workload.QUOTA_GET) {
      setQuotas(progress);
    } else {
      prepareNamespace(progress);
    }
    long start = clock.getAsLong();
    measureStart = start + warmupNanos;
    measureEnd = measureStart + windowNanos;
    CountDownLatch stopped = new CountDownLatch(inFlight);
    for (int i = 0; i < inFlight; i++) {
      next(clients.get(i % clients.size()), stopped);
    }
    stopped.await(warmupNanos + windowNanos + drainNanos, TimeUnit.NANOSECONDS);
    LatencySummary latency;
    synchronized (histogram) {
      latency = LatencySummary.of(histogram);
    }
    return new Result(op.option(), inFlight, clients.size(), keys, value.length, ttlMillis,
        windowNanos / 1e9, warmupCompletions.get(), ok.get(), rejected.get(), errors.get(), latency);
  }

  private void prepareNamespace(PrintWriter progress) {
    TtlEntries setup = clients.get(0).ttl();
    NamespaceResult ns = setup.setNamespace(NamespaceSpec.builder(namespace).maxEntries(Math.max(keys, 1) * 2L)
        .maxBytes((long) Math.max(keys, 1) * (value.length + 64) * 2).whenFull(CapacityPolicy.REJECT).build());
    if (ns.outcome() != Outcome.SUCCESS) {
      throw new IllegalStateException("bench: namespace " + namespace + ": " + ns.outcome() + " " + ns.message());
    }
    if (!put) {
      List<CompletableFuture<WriteResult>> loads = new ArrayList<>();
      for (int k = 0; k < keys; k++) {
        loads.add(clients.get(k % clients.size()).ttl().putAsync(namespace, key(k), value, TtlEntries.NO_EXPIRY));
        if (loads.size() >= 256) {
          loads.forEach(CompletableFuture::join);
          loads.clear();
        }
      }
      loads.forEach(CompletableFuture::join);
      progress.printf(Locale.ROOT, "bench: %d keys preloaded in %s%n", keys, namespace);
      progress.flush();
    }
  }

  /** One limit per key, set (or replaced) before the run: what limit-get reads. */
  private void setLimits(PrintWriter progress) {
    setEach("limit", k -> clients.get(0).setLimitAsync(LimitSpec.builder(namespace, resource(k))
        .ratePerSecond(1000).burst(100).build())
        .thenApply(r -> r.outcome() == Outcome.SUCCESS ? null : r.outcome() + " " + r.message()));
    progress.printf(Locale.ROOT, "bench: %d limits set for tenant %s%n", keys, namespace);
    progress.flush();
  }

  /** One rate quota per key under the scope {@code <namespace>}, set before the run: what quota-get reads. */
  private void setQuotas(PrintWriter progress) {
    QuotaClient q = clients.get(0).quotas();
    setEach("quota", k -> q.setQuotaAsync(QuotaDefinition.rate(namespace, resource(k), 1_000_000, Window.MINUTE).build())
        .thenApply(r -> r.outcome() == Outcome.SUCCESS ? null : r.outcome() + " " + r.message()));
    progress.printf(Locale.ROOT, "bench: %d quotas set under scope %s%n", keys, namespace);
    progress.flush();
  }

  /**
   * Runs {@code set} for every key, 256 at a time; each answers null when it succeeded, else why
   * not, which ends the run before it starts.
   */
  private void setEach(String what, java.util.function.IntFunction<CompletableFuture<String>> set) {
    List<CompletableFuture<String>> sets = new ArrayList<>();
    for (int k = 0; k < keys; k++) {
      sets.add(set.apply(k));
      if (sets.size() >= 256 || k == keys - 1) {
        for (CompletableFuture<String> f : sets) {
          String failure = f.join();
          if (failure != null) {
            throw new IllegalStateException("bench: set " + what + ": " + failure);
          }
        }
        sets.clear();
      }
    }
  }

  private static String resource(long k) {
    return "r" + k;
  }

  private String key(long k) {
    return "k" + k;
  }

  private void next(RationClient client, CountDownLatch stopped) {
    long sent = clock.getAsLong();
    if (sent - measureEnd >= 0) {
      stopped.countDown();
      return;
    }
    long k = Math.floorMod(cursor.getAndIncrement(), (long) keys);
    CompletableFuture<Boolean> reply = switch (op) {
      case TTL_PUT -> client.ttl().putAsync(namespace, key(k), value,
              ttlMillis < 0 ? TtlEntries.NO_EXPIRY : Duration.ofMillis(ttlMillis))
          .thenApply(r -> r.outcome() == Outcome.SUCCESS);
      case TTL_GET -> client.ttl().getAsync(namespace, key(k)).thenApply(java.util.Optional::isPresent);
      case LIMIT_GET -> client.getLimitAsync(namespace, resource(k)).thenApply(java.util.Optional::isPresent);
      case QUOTA_GET -> client.quotas().getQuotaAsync(namespace, resource(k)).thenApply(java.util.Optional::isPresent);
      default -> throw new IllegalStateException(op + " is not a key loop");
    };
    reply.whenComplete((success, err) -> {
      long done = clock.getAsLong();
      if (sent - measureStart < 0) {
        warmupCompletions.incrementAndGet();
      } else if (done - measureEnd < 0) {
        if (err != null) {
          errors.incrementAndGet();
        } else if (success) {
          ok.incrementAndGet();
        } else {
          rejected.incrementAndGet();
        }
        synchronized (histogram) {
          histogram.recordValue(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMicros(done - sent),
              histogram.getHighestTrackableValue())));
        }
      }
      // Re-issue off the completing thread's stack when the reply completed synchronously.
      CompletableFuture.runAsync(() -> next(client, stopped));
    });
  }

  public static String table(Result r) {
    LatencySummary l = r.latency();
    return String.format(Locale.ROOT,
        "op            %s%nin-flight     %d over %d connection(s)%nkeys          %d, value %d bytes, ttl %d ms%n"
            + "window        %.1f s%nok            %d (%.1f/s)%nrejected      %d%nerrors        %d%n"
            + "latency       p50 %s  p90 %s  p99 %s  p99.9 %s  max %s%n",
        r.op(), r.inFlight(), r.clients(), r.keys(), r.valueBytes(), r.ttlMillis(), r.windowSeconds(),
        r.ok(), r.perSecond(), r.rejected(), r.errors(), LoadGenerator.millisText(l.p50Micros()),
        LoadGenerator.millisText(l.p90Micros()), LoadGenerator.millisText(l.p99Micros()),
        LoadGenerator.millisText(l.p999Micros()), LoadGenerator.millisText(l.maxMicros()));
  }

  public static String json(Result r) {
    LatencySummary l = r.latency();
    return String.format(Locale.ROOT,
        "{\"op\":\"%s\",\"inFlight\":%d,\"connections\":%d,\"keys\":%d,\"valueBytes\":%d,\"ttlMillis\":%d,"
            + "\"windowSeconds\":%.3f,\"warmupCompletions\":%d,\"ok\":%d,\"okPerSecond\":%.1f,\"rejected\":%d,\"errors\":%d,"
            + "\"latencyMicros\":{\"p50\":%d,\"p90\":%d,\"p99\":%d,\"p999\":%d,\"max\":%d}}",
        r.op(), r.inFlight(), r.clients(), r.keys(), r.valueBytes(), r.ttlMillis(), r.windowSeconds(),
        r.warmupCompletions(), r.ok(), r.perSecond(), r.rejected(), r.errors(), l.p50Micros(), l.p90Micros(), l.p99Micros(),
        l.p999Micros(), l.maxMicros());
  }
}
