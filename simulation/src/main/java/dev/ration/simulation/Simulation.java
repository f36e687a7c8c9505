package dev.ration.simulation;

import dev.ration.wire.lease.Limit;
import dev.ration.client.limiter.internal.LeaseTransport;
import dev.ration.client.limiter.internal.Limiters;
import dev.ration.client.limiter.LimiterOptions;
import dev.ration.client.limiter.ManualScheduler;
import dev.ration.client.limiter.RateLimiter;
import dev.ration.wire.Outcome;
import dev.ration.protocol.Response;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.LeaseCommand.AcquireLease;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.LeaseCommand.NewEpoch;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.LeaseCommand.RenewLease;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.LeaseCommand.ReturnLease;
import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.statemachine.command.Tick;
import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.lease.LimitStatus;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.store.RocksCoordinatorState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * A deterministic simulation of the regional limiter: the real ledger ({@link
 * RocksCoordinatorState} on a temporary RocksDB, {@code verify()} after every entry), the real
 * client ({@link RateLimiter} and its {@code LeasedBucket}, one per region, each on its own
 * {@link ManualScheduler} clock running at its own rate), joined by a simulated network with
 * delays, drops, duplicates, reordering and partitions, and a coordinator that can fail over.
 *
 * <p>Time: true time advances in steps of 1 ms. At each step, in order: due network and
 * coordinator events run (deliveries, timeouts, ticks, failover); each region's clock is moved
 * to its local time for the step (running its lease timers); each region offers its load as
 * requests of one permit to {@code tryAcquire}; due tasks (kicks) run. Every random choice comes
 * from one {@link SplittableRandom} seeded by the scenario, and everything runs on the calling
 * thread, so a scenario replays exactly.
 *
 * <p>Coordinator log time: advances with true time while a leader is up; after a failover the
 * new leader's log time continues from the last entry's time (so it lags true time by the gap,
 * as docs/ARCHITECTURE.md, "Time" says), and NewEpoch is committed first.
 *
 * <p>Thread: single-threaded; not reusable (one run per instance).
 */
public final class Simulation {
  static final String TENANT = "sim";
  static final String RESOURCE = "api";
  private static final long NANOS_PER_MILLI = 1_000_000L;
  private static final long TICK_EVERY_MILLIS = 20;
  private static final long RATE_WINDOW_MILLIS = 200;
  static final long[] WINDOW_LENGTHS_MILLIS = {10, 100, 1_000, 5_000, 10_000};

  private final Scenario s;
  private final SplittableRandom random;
  private final PriorityQueue<Event> events = new PriorityQueue<>();
  private long eventSeq;
  private long nowMillis; // true time

  // coordinator
  private final Path dir;
  private final RocksCoordinatorState state;
  private long term = 1;
  private long index;
  private boolean up = true;
  private long logBaseMillis = 1_000_000;
  private long upSinceMillis;
  private long entries;

  private final List<Region> regions = new ArrayList<>();
  private final long[] admittedPerMilli;

  private record Event(long atMillis, long seq, Runnable body) implements Comparable<Event> {
    @Override
    public int compareTo(Event o) {
      int c = Long.compare(atMillis, o.atMillis);
      return c != 0 ? c : Long.compare(seq, o.seq);
    }
  }

  private final class Region {
    final int id;
    final ManualScheduler clock;
    final long originNanos;
    final RateLimiter limiter;
    final int[] admitted;
    long sequence;
    long carry;

    Region(int id) {
      this.id = id;
      // Unrelated origins: monotonic clocks of different hosts share nothing.
      this.originNanos = 1_000_000_000_000L * (id + 1) + random.nextLong(1_000_000_000L);
      this.clock = new ManualScheduler(java.time.Duration.ofNanos(originNanos));
      LimiterOptions options = LimiterOptions.builder()
          .manual(clock)
          .renewFraction(s.renewFraction())
          .ewmaAlpha(s.ewmaAlpha())
          // Seeded per region, apart from the scenario's stream: a run stays repeatable.
          .jitterRandom(new SplittableRandom(s.seed() * 31 + id))
          .build();
      this.limiter = Limiters.create(new SimTransport(this), clock, TENANT, RESOURCE,
          "region-" + id, options);
      this.admitted = new int[(int) s.durationMillis()];
    }

    long localNanos(long trueMillis) {
      long trueNanos = trueMillis * NANOS_PER_MILLI;
      return originNanos + trueNanos + trueNanos / 1_000_000L * s.driftPpm()[id];
    }
  }

  private Simulation(Scenario scenario) {
    this.s = scenario;
    this.random = new SplittableRandom(scenario.seed());
    try {
      this.dir = Files.createTempDirectory("ration-sim-");
    } catch (IOException e) {
      throw new UncheckedIOException("create simulation directory", e);
    }
    this.state = RocksCoordinatorState.open(dir.resolve("ledger"), StateOptions.defaults());
    this.admittedPerMilli = new long[(int) scenario.durationMillis()];
  }

  /** Runs one scenario to the end and reports; the ledger's directory is deleted afterwards. */
  public static Report run(Scenario scenario) {
    Simulation sim = new Simulation(scenario);
    try {
      return sim.execute();
    } finally {
      sim.state.close();
      deleteTree(sim.dir);
    }
  }

  private Report execute() {
    apply(RequestKey.NONE, new NewEpoch("coordinator-1"));
    apply(new RequestKey(99, 1, 1), new SetLimit(new Limit(TENANT, RESOURCE, s.ratePerSecond(), s.burst(),
        s.mode(), s.leaseDurationMillis(), s.graceMillis(), s.emergency(), s.policy(), 0)));
    for (int i = 0; i < s.regions(); i++) {
      regions.add(new Region(i));
    }
    at(TICK_EVERY_MILLIS, this::tick);
    if (s.failoverAtMillis() >= 0) {
      at(s.failoverAtMillis(), () -> up = false);
      at(s.failoverAtMillis() + s.failoverGapMillis(), this::newLeader);
    }
    long shareTo90 = s.shiftAtMillis() < 0 ? -1 : Long.MAX_VALUE;
    long timeTo90 = shareTo90;
    Region hot = regions.get(s.hotRegion());
    long hotWindow = 0;
    long ninety = s.ratePerSecond() * 9 / 10;
    for (nowMillis = 0; nowMillis < s.durationMillis(); nowMillis++) {
      runEvents();
      for (Region r : regions) {
        r.clock.advanceTo(java.time.Duration.ofNanos(r.localNanos(nowMillis)));
      }
      for (Region r : regions) {
        offer(r);
      }
      for (Region r : regions) {
        r.clock.runDue();
      }
      // hot-region measurements after the shift
      hotWindow += hot.admitted[(int) nowMillis];
      if (nowMillis >= RATE_WINDOW_MILLIS) {
        hotWindow -= hot.admitted[(int) (nowMillis - RATE_WINDOW_MILLIS)];
      }
      if (s.shiftAtMillis() >= 0 && nowMillis >= s.shiftAtMillis()) {
        long since = nowMillis - s.shiftAtMillis();
        if (shareTo90 == Long.MAX_VALUE
            && hot.limiter.lease().map(l -> l.rateShare() >= ninety).orElse(false)) {
          shareTo90 = since;
        }
        if (timeTo90 == Long.MAX_VALUE && since >= RATE_WINDOW_MILLIS
            && hotWindow * 1000 >= ninety * RATE_WINDOW_MILLIS) {
          timeTo90 = since;
        }
      }
    }
    return report(timeTo90, shareTo90);
  }

  private void offer(Region r) {
    long perSecond = s.load().perSecond(r.id, nowMillis);
    r.carry += perSecond;
    long n = r.carry / 1000;
    r.carry %= 1000;
    for (long i = 0; i < n; i++) {
      if (r.limiter.tryAcquire(1)) {
        r.admitted[(int) nowMillis]++;
        admittedPerMilli[(int) nowMillis]++;
      }
    }
  }

  private Report report(long timeTo90, long shareTo90) {
    long total = 0;
    for (long a : admittedPerMilli) {
      total += a;
    }
    long measured = 0;
    for (int t = (int) s.warmupMillis(); t < admittedPerMilli.length; t++) {
      measured += admittedPerMilli[t];
    }
    long span = s.durationMillis() - s.warmupMillis();
    double utilization = measured / (s.ratePerSecond() * span / 1000.0 + s.burst());
    long extra = s.mode() == dev.ration.wire.Mode.BEST_EFFORT
        ? s.emergency() * s.disconnectable() : 0;
    List<Report.Window> windows = new ArrayList<>();
    List<Long> lengths = new ArrayList<>();
    for (long w : WINDOW_LENGTHS_MILLIS) {
      if (w < s.durationMillis()) {
        lengths.add(w);
      }
    }
    lengths.add(s.durationMillis());
    for (long w : lengths) {
      long max = maxWindow(admittedPerMilli, (int) w);
      long bound = (s.ratePerSecond() * (w - 1)) / 1000 + s.burst() + extra;
      windows.add(new Report.Window(w, max, bound));
    }
    LimitStatus status = ((QueryResult.LimitAnswer) state.query(
        new Query.GetLimit(TENANT, RESOURCE), 0)).limit().orElseThrow();
    return new Report(s.name(), total, utilization, timeTo90, shareTo90, windows,
        status.emergencyReported(), entries, s.leaseDurationMillis());
  }

  /** The largest sum of {@code length} consecutive entries (sliding, every position). */
  static long maxWindow(long[] perMilli, int length) {
    long sum = 0;
    long max = 0;
    for (int i = 0; i < perMilli.length; i++) {
      sum += perMilli[i];
      if (i >= length) {
        sum -= perMilli[i - length];
      }
      max = Math.max(max, sum);
    }
    return max;
  }

  // ---------------------------------------------------------------- events

  private void at(long atMillis, Runnable body) {
    events.add(new Event(atMillis, eventSeq++, body));
  }

  private void runEvents() {
    int ran = 0;
    while (!events.isEmpty() && events.peek().atMillis() <= nowMillis) {
      events.poll().body().run();
      if (++ran > 1_000_000) {
        throw new IllegalStateException("more than 1,000,000 events at " + nowMillis + " ms");
      }
    }
  }

  private long delay() {
    Scenario.Network n = s.network();
    return n.baseDelayMillis() + (n.jitterMillis() == 0 ? 0 : random.nextLong(n.jitterMillis() + 1));
  }

  private boolean partitioned(int region, long atMillis) {
    for (Scenario.Partition p : s.partitions()) {
      if (p.region() == region && atMillis >= p.fromMillis() && atMillis < p.toMillis()) {
        return true;
      }
    }
    return false;
  }

  /** Sends {@code command} from region r; the reply (or a timeout) completes the future. */
  private <T> CompletableFuture<T> send(Region r, long requestId, Command command,
      Function<Result, T> reply) {
    CompletableFuture<T> f = new CompletableFuture<>();
    RequestKey key = new RequestKey(r.id + 1, 7, requestId);
    Scenario.Network n = s.network();
    at(nowMillis + n.requestTimeoutMillis(), () -> {
      if (f.completeExceptionally(new TimeoutException(command + " timed out"))) {
        r.clock.runDue();
      }
    });
    if (partitioned(r.id, nowMillis) || random.nextDouble() < n.dropProbability()) {
      return f;
    }
    int copies = random.nextDouble() < n.duplicateProbability() ? 2 : 1;
    for (int c = 0; c < copies; c++) {
      at(nowMillis + delay(), () -> deliver(r, key, command, reply, f));
    }
    return f;
  }

  private <T> void deliver(Region r, RequestKey key, Command command, Function<Result, T> reply,
      CompletableFuture<T> f) {
    if (!up || partitioned(r.id, nowMillis)) {
      return;
    }
    T answer = reply.apply(apply(key, command));
    Scenario.Network n = s.network();
    if (random.nextDouble() < n.dropProbability()) {
      return;
    }
    int copies = random.nextDouble() < n.duplicateProbability() ? 2 : 1;
    for (int c = 0; c < copies; c++) {
      at(nowMillis + delay(), () -> {
        if (!partitioned(r.id, nowMillis) && f.complete(answer)) {
          r.clock.runDue();
        }
      });
    }
  }

  // ---------------------------------------------------------------- coordinator

  private long logTimeMillis() {
    return logBaseMillis + (nowMillis - upSinceMillis);
  }

  private Result apply(RequestKey key, Command command) {
    Batch batch = Batch.of(logTimeMillis(), List.of(new Proposal(key, command)));
    Result result = state.apply(term, index++, batch).get(0);
    state.verify();
    entries++;
    return result;
  }

  private void tick() {
    if (up && state.nextDueMillis() <= logTimeMillis()) {
      apply(RequestKey.NONE, new Tick(10_000));
    }
    at(nowMillis + TICK_EVERY_MILLIS, this::tick);
  }

  private void newLeader() {
    term++;
    logBaseMillis = state.nowMillis();
    upSinceMillis = nowMillis;
    up = true;
    apply(RequestKey.NONE, new NewEpoch("coordinator-" + term));
  }

  // ---------------------------------------------------------------- transport

  private final class SimTransport implements LeaseTransport {
    private final Region r;

    SimTransport(Region r) {
      this.r = r;
    }

    @Override
    public long nextRequestId() {
      return ++r.sequence;
    }

    @Override
    public CompletableFuture<Response.LeaseReply> acquire(long requestId, String tenant,
        String resource, String holder, long demandRatePerSecond, long demandBurst) {
      return send(r, requestId, new AcquireLease(tenant, resource, holder, demandRatePerSecond, demandBurst),
          Simulation::leaseReply);
    }

    @Override
    public CompletableFuture<Response.LeaseReply> renew(long requestId, long leaseId,
        long presentedVersion, long demandRatePerSecond, long demandBurst, long admittedPerSecond,
        long rejectedPerSecond, long emergencyUsed) {
      return send(r, requestId, new RenewLease(leaseId, presentedVersion, demandRatePerSecond, demandBurst,
          admittedPerSecond, rejectedPerSecond, emergencyUsed), Simulation::leaseReply);
    }

    @Override
    public CompletableFuture<Response.ReturnReply> returnLease(long requestId, long leaseId,
        long presentedVersion, long unusedBalance) {
      return send(r, requestId, new ReturnLease(leaseId, presentedVersion, unusedBalance), result -> {
        if (result instanceof Result.LeaseReturned x) {
          return new Response.ReturnReply(Outcome.SUCCESS, "", x.leaseId(), x.credited(), x.alreadyGone());
        }
        Result.Rejected j = (Result.Rejected) result;
        return new Response.ReturnReply(j.outcome(), j.message(), leaseId, 0, false);
      });
    }
  }

  /** The server's translation of a lease result (endpoint/Translation), restated for the sim. */
  static Response.LeaseReply leaseReply(Result result) {
    if (result instanceof Result.LeaseGranted g) {
      return new Response.LeaseReply(Outcome.SUCCESS, "", 0, g.lease().version(),
          g.lease(), g.startBalance());
    }
    if (result instanceof Result.LeaseRenewed r) {
      return new Response.LeaseReply(Outcome.SUCCESS, "", 0, r.lease().version(),
          r.lease(), 0);
    }
    Result.Rejected j = (Result.Rejected) result;
    return new Response.LeaseReply(j.outcome(), j.message(),
        j.retryAfterMillis(), j.currentVersion(), null, 0);
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("delete simulation directory " + root, e);
    }
  }
}
