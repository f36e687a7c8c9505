package dev.ration.bench;

import dev.ration.client.RationClient;
import dev.ration.client.RationException;
import dev.ration.client.ttl.NamespaceSpec;
import dev.ration.client.ttl.TtlEntries;
import dev.ration.wire.CapacityPolicy;
import dev.ration.wire.ErrorCode;
import dev.ration.wire.Outcome;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;

/**
 * `ration bench --op saturation`: the server at and beyond its capacity. First a closed loop of
 * TTL puts ({@code inFlight} slots), then an open loop offering twice, four times... its rate
 * until the server stops keeping up, measure capacity C (the best goodput seen); then an open
 * loop offers puts at a
 * fixed rate — fractions and multiples of C, one step each — whatever the answers, the way
 * independent callers do. Each step reports goodput (puts applied per second), the share refused
 * at once (OVERLOADED: admission's bounds), the share that missed its deadline, and latency of
 * the puts that succeeded. The client retries nothing, so every refusal is seen.
 *
 * <p>Puts go round-robin over {@code namespaces} namespaces (tenants for the node's fairness
 * shares), so one tenant's share is not what saturates. Bounded: a step lasts {@code stepNanos};
 * at most {@link #MAX_OUTSTANDING} puts are outstanding (beyond that the generator counts the
 * put as shed by the client and does not send it); the wait for stragglers is bounded by the
 * request timeout.
 *
 * <p>Threads: one pacing thread sends; answers complete on the clients' event loops and go to
 * per-step counters and one synchronized histogram.
 */
public final class SaturationBench {
  public static final int MAX_OUTSTANDING = 100_000;
  /** Bound of the capacity ramp: 2^8 times the closed loop's rate. */
  static final int MAX_DOUBLINGS = 8;

  /** One step's figures. */
  public record Step(double multiple, double offeredPerSecond, double seconds, long sent, long ok,
      long overloaded, long deadline, long otherErrors, long shed, LatencySummary latency) {
    double goodput() {
      return ok / seconds;
    }

    double share(long n) {
      return sent == 0 ? 0 : 100.0 * n / sent;
    }
  }

  /** The capacity probe and every step. */
  public record Result(int namespaces, int clients, int inFlight, double capacity, List<Step> steps) {}

  private static final Duration TTL = Duration.ofMinutes(1);

  private final RationClient setup;
  private final List<RationClient> clients;
  private final int namespaces;
  private final int inFlight;
  private final byte[] value = new byte[64];
  private final LongSupplier clock;
  private final AtomicLong cursor = new AtomicLong();
  private final AtomicInteger outstanding = new AtomicInteger();

  public SaturationBench(RationClient setup, List<RationClient> clients, int namespaces, int inFlight,
      LongSupplier clock) {
    this.setup = setup;
    this.clients = List.copyOf(clients);
    this.namespaces = namespaces;
    this.inFlight = inFlight;
    this.clock = clock;
  }

  public Result run(double[] multiples, long warmupNanos, long stepNanos, long drainNanos, PrintWriter progress)
      throws InterruptedException {
    TtlEntries ttl = setup.ttl();
    for (int n = 0; n < namespaces; n++) {
      // Evicting the soonest-expiring entries keeps every put admissible however long the run.
      var reply = ttl.setNamespace(NamespaceSpec.builder(namespace(n)).maxEntries(10_000)
          .maxBytes(16L << 20).whenFull(CapacityPolicy.EVICT_SOONEST_EXPIRING).build());
      if (reply.outcome() != Outcome.SUCCESS) {
        throw new IllegalStateException("bench: namespace " + namespace(n) + ": " + reply.message());
      }
    }
    Counters warm = new Counters();
    closedLoop(warm, clock.getAsLong() + warmupNanos, drainNanos);
    Counters probe = new Counters();
    long start = clock.getAsLong();
    closedLoop(probe, start + stepNanos, drainNanos);
    double closed = probe.ok.get() / ((clock.getAsLong() - start) / 1e9);
    if (closed < 1) {
      throw new IllegalStateException("bench: no put succeeded in the closed-loop probe");
    }
    // A closed loop measures what its callers wait for, not what the server can do: ramp the
    // offered rate up (doubling, bounded) until the server stops keeping up, and take the best
    // goodput seen as the capacity.
    double capacity = closed;
    double rate = closed;
    for (int i = 0; i < MAX_DOUBLINGS; i++) {
      rate *= 2;
      Step s = openLoop(0, rate, stepNanos / 2, drainNanos);
      capacity = Math.max(capacity, s.goodput());
      progress.printf(Locale.ROOT, "bench: ramp offered %.0f/s: goodput %.0f/s, overloaded %.1f%%, deadline %.1f%%%n",
          rate, s.goodput(), s.share(s.overloaded()), s.share(s.deadline()));
      progress.flush();
      if (s.goodput() < 0.9 * rate || s.share(s.overloaded() + s.deadline()) > 1) {
        break;
      }
    }
    progress.printf(Locale.ROOT, "bench: capacity %.0f puts/s (closed loop with %d in flight: %.0f/s)%n",
        capacity, inFlight, closed);
    progress.flush();
    List<Step> steps = new ArrayList<>();
    for (double m : multiples) {
      Step s = openLoop(m, m * capacity, stepNanos, drainNanos);
      steps.add(s);
      progress.printf(Locale.ROOT, "bench: %.2fx offered %.0f/s: goodput %.0f/s, overloaded %.1f%%, "
              + "deadline %.1f%%, p99 %s%n", m, s.offeredPerSecond(), s.goodput(), s.share(s.overloaded()),
          s.share(s.deadline()), LoadGenerator.millisText(s.latency().p99Micros()));
      progress.flush();
    }
    return new Result(namespaces, clients.size(), inFlight, capacity, steps);
  }

  private String namespace(long n) {
    return "saturation-" + n;
  }

  private static final class Counters {
    final AtomicLong sent = new AtomicLong();
    final AtomicLong ok = new AtomicLong();
    final AtomicLong overloaded = new AtomicLong();
    final AtomicLong deadline = new AtomicLong();
    final AtomicLong other = new AtomicLong();
    final AtomicLong shed = new AtomicLong();
    final Histogram histogram = Accounting.newHistogram();
  }

  private void closedLoop(Counters c, long endNanos, long drainNanos) throws InterruptedException {
    CountDownLatch stopped = new CountDownLatch(inFlight);
    for (int i = 0; i < inFlight; i++) {
      RationClient client = clients.get(i % clients.size());
      Runnable[] next = new Runnable[1];
      next[0] = () -> {
        if (clock.getAsLong() - endNanos >= 0) {
          stopped.countDown();
          return;
        }
        send(client, c).whenComplete((x, e) -> CompletableFuture.runAsync(next[0]));
      };
      next[0].run();
    }
    stopped.await(endNanos - clock.getAsLong() + drainNanos, TimeUnit.NANOSECONDS);
  }

  private Step openLoop(double multiple, double rate, long stepNanos, long drainNanos)
      throws InterruptedException {
    Counters c = new Counters();
    long start = clock.getAsLong();
    long end = start + stepNanos;
    long issued = 0;
    // Paced by elapsed time, not by answers: the number due at any moment is rate × elapsed.
    for (long now = start; now - end < 0; now = clock.getAsLong()) {
      long due = (long) (rate * (now - start) / 1e9);
      for (; issued < due; issued++) {
        if (outstanding.get() >= MAX_OUTSTANDING) {
          c.shed.incrementAndGet();
          continue;
        }
        send(clients.get((int) (issued % clients.size())), c);
      }
      LockSupport.parkNanos(200_000);
    }
    double seconds = (clock.getAsLong() - start) / 1e9;
    long waitUntil = clock.getAsLong() + drainNanos;
    while (outstanding.get() > 0 && clock.getAsLong() - waitUntil < 0) {
      LockSupport.parkNanos(1_000_000);
    }
    LatencySummary latency;
    synchronized (c.histogram) {
      latency = LatencySummary.of(c.histogram);
    }
    return new Step(multiple, rate, seconds, c.sent.get(), c.ok.get(), c.overloaded.get(),
        c.deadline.get(), c.other.get(), c.shed.get(), latency);
  }

  private CompletableFuture<?> send(RationClient client, Counters c) {
    long sent = clock.getAsLong();
    long n = cursor.getAndIncrement();
    c.sent.incrementAndGet();
    outstanding.incrementAndGet();
    return client.ttl().putAsync(namespace(Math.floorMod(n, (long) namespaces)), "k" + (n % 10_000), value, TTL)
        .whenComplete((reply, err) -> {
          outstanding.decrementAndGet();
          Throwable t = err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
          if (t == null && reply.outcome() == Outcome.SUCCESS) {
            c.ok.incrementAndGet();
            long micros = TimeUnit.NANOSECONDS.toMicros(clock.getAsLong() - sent);
            synchronized (c.histogram) {
              c.histogram.recordValue(Math.max(1, Math.min(micros, c.histogram.getHighestTrackableValue())));
            }
          } else if (t instanceof RationException e && e.code() == ErrorCode.OVERLOADED) {
            c.overloaded.incrementAndGet();
          } else if (t instanceof RationException e && e.code() == ErrorCode.DEADLINE_EXCEEDED) {
            c.deadline.incrementAndGet();
          } else {
            c.other.incrementAndGet();
          }
        });
  }

  public static String table(Result r) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "capacity      %.0f puts/s (closed loop, %d in flight, %d connection(s), %d namespaces)%n",
        r.capacity(), r.inFlight(), r.clients(), r.namespaces()));
    b.append(String.format(Locale.ROOT, "%-7s %10s %10s %9s %10s %9s %6s %9s %9s%n",
        "offered", "offered/s", "goodput/s", "goodput", "overloaded", "deadline", "other", "p50", "p99"));
    for (Step s : r.steps()) {
      b.append(String.format(Locale.ROOT, "%-7s %10.0f %10.0f %8.0f%% %9.1f%% %8.1f%% %6d %9s %9s%n",
          String.format(Locale.ROOT, "%.2fx", s.multiple()), s.offeredPerSecond(), s.goodput(),
          100.0 * s.goodput() / r.capacity(), s.share(s.overloaded()), s.share(s.deadline()),
          s.otherErrors() + s.shed(), LoadGenerator.millisText(s.latency().p50Micros()),
          LoadGenerator.millisText(s.latency().p99Micros())));
    }
    return b.toString();
  }

  public static String json(Result r) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "{\"op\":\"saturation\",\"capacityPerSecond\":%.1f,\"inFlight\":%d,"
        + "\"connections\":%d,\"namespaces\":%d,\"steps\":[", r.capacity(), r.inFlight(), r.clients(), r.namespaces()));
    for (int i = 0; i < r.steps().size(); i++) {
      Step s = r.steps().get(i);
      b.append(i == 0 ? "" : ",").append(String.format(Locale.ROOT,
          "{\"multiple\":%.2f,\"offeredPerSecond\":%.1f,\"seconds\":%.3f,\"sent\":%d,\"ok\":%d,"
              + "\"goodputPerSecond\":%.1f,\"overloaded\":%d,\"deadlineExceeded\":%d,\"otherErrors\":%d,"
              + "\"shed\":%d,\"latencyMicros\":{\"p50\":%d,\"p99\":%d,\"max\":%d}}",
          s.multiple(), s.offeredPerSecond(), s.seconds(), s.sent(), s.ok(), s.goodput(), s.overloaded(),
          s.deadline(), s.otherErrors(), s.shed(), s.latency().p50Micros(), s.latency().p99Micros(),
          s.latency().maxMicros()));
    }
    return b.append("]}").toString();
  }
}
