package dev.ration.bench;

import dev.ration.wire.lease.LeaseView;

import dev.ration.client.RationException;
import dev.ration.wire.ErrorCode;
import dev.ration.wire.Outcome;
import dev.ration.protocol.Response;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A closed-loop load generator: {@code inFlight} slots, each with exactly one request
 * outstanding; a slot's completion issues its next request, until the measured window closes.
 * Slot i talks through target {@code i % targets.size()} (one client connection each).
 *
 * <p>Workloads: ACQUIRE asks for a new lease every time (leases expire on their own);
 * RENEW first acquires one lease per slot (not measured), then each slot renews its own lease
 * presenting the version it last got, so every renewal is valid; a slot that loses its lease
 * (LEASE_EXPIRED, LEASE_UNKNOWN, VERSION_MISMATCH, or an indeterminate renewal whose new version
 * it cannot know) acquires a fresh one, counted as REACQUIRE. MIXED renews with probability
 * {@code renewRatio} and otherwise acquires a lease that replaces the slot's own.
 *
 * <p>Threads: slots run on the clients' event-loop threads (where replies complete); one
 * scheduler thread re-issues after errors (with a short pause, so a persistent fast failure
 * cannot spin) and when a reply completed synchronously inside the call (so the loop never
 * recurses); the calling thread prints progress and waits. Bounded: every slot stops at the
 * window's end, and the wait for stragglers is bounded by {@code drain}.
 */
public final class LoadGenerator {
  /** Pause before a slot's next request after an error (not a reply). */
  static final long ERROR_PAUSE_MILLIS = 10;

  private final List<LeaseTarget> targets;
  private final LoadPlan plan;
  private final LongSupplier clock;
  private final PrintWriter progress;
  private final AtomicLong resourceCursor = new AtomicLong();
  private final AtomicInteger outstandingMax = new AtomicInteger();
  private final AtomicInteger outstanding = new AtomicInteger();

  public LoadGenerator(List<LeaseTarget> targets, LoadPlan plan, LongSupplier clock, PrintWriter progress) {
    if (targets.isEmpty()) {
      throw new IllegalArgumentException("targets is empty: need at least one client");
    }
    this.targets = List.copyOf(targets);
    this.plan = plan;
    this.clock = clock;
    this.progress = progress;
  }

  /** What a run measured, and how it went around the window. */
  public record Run(Accounting.Results results, int setupLeases, int setupFailures, int abandoned,
      int maxOutstanding, double elapsedSeconds) {}

  /** Runs warm-up, then the window; returns once every slot stopped or {@code drain} passed. */
  public Run run() throws InterruptedException {
    ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "ration-bench-scheduler");
      t.setDaemon(true);
      return t;
    });
    try {
      return run(scheduler);
    } finally {
      scheduler.shutdownNow();
      scheduler.awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private Run run(ScheduledExecutorService scheduler) throws InterruptedException {
    long t0 = clock.getAsLong();
    List<Slot> slots = new ArrayList<>();
    for (int i = 0; i < plan.inFlight(); i++) {
      slots.add(new Slot(i, targets.get(i % targets.size()), scheduler));
    }
    int setupLeases = 0;
    if (plan.workload().holdsLeases()) {
      setupLeases = acquireInitialLeases(slots);
      progress.printf(Locale.ROOT, "bench: %d of %d initial leases acquired%n", setupLeases, slots.size());
      progress.flush();
    }
    long start = clock.getAsLong();
    Accounting books = new Accounting(start, plan.warmup(), plan.duration());
    CountDownLatch stopped = new CountDownLatch(slots.size());
    for (Slot s : slots) {
      s.begin(books, stopped);
    }
    long intervalNanos = plan.progressInterval().toNanos();
    long deadline = books.measureEndNanos() + plan.drain().toNanos();
    long nextProgress = start + intervalNanos;
    while (true) {
      long now = clock.getAsLong();
      long waitNanos = Math.min(nextProgress, deadline) - now;
      if (waitNanos > 0 && stopped.await(waitNanos, TimeUnit.NANOSECONDS)) {
        break;
      }
      now = clock.getAsLong();
      if (now - deadline >= 0) {
        break;
      }
      if (now - nextProgress >= 0) {
        printProgress(books.sampleInterval(now), now - start);
        nextProgress = now + intervalNanos;
      }
    }
    long end = clock.getAsLong();
    int abandoned = (int) stopped.getCount();
    Accounting.Results results = books.results(end);
    int setupFailures = plan.workload().holdsLeases() ? slots.size() - setupLeases : 0;
    return new Run(results, setupLeases, setupFailures, abandoned, outstandingMax.get(),
        (end - t0) / 1e9);
  }

  private int acquireInitialLeases(List<Slot> slots) throws InterruptedException {
    List<CompletableFuture<Boolean>> all = new ArrayList<>();
    for (Slot s : slots) {
      all.add(s.acquireInitial());
    }
    long deadline = clock.getAsLong() + plan.setupTimeout().toNanos();
    int held = 0;
    for (CompletableFuture<Boolean> f : all) {
      long left = Math.max(0, deadline - clock.getAsLong());
      try {
        if (f.get(left, TimeUnit.NANOSECONDS)) {
          held++;
        }
      } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
        // Counted as a setup failure; the slot starts with a reacquire.
      }
    }
    return held;
  }

  private void printProgress(Accounting.IntervalSample s, long sinceStartNanos) {
    LatencySummary l = s.latency();
    progress.printf(Locale.ROOT,
        "bench %-7s t=%4ds  %9.1f replies/s  errors %d  p50 %s  p99 %s  max %s%n",
        s.phase().name().toLowerCase(Locale.ROOT), TimeUnit.NANOSECONDS.toSeconds(sinceStartNanos),
        s.repliesPerSecond(), s.errors(), millisText(l.p50Micros()), millisText(l.p99Micros()),
        millisText(l.maxMicros()));
    progress.flush();
  }

  static String millisText(long micros) {
    return String.format(Locale.ROOT, "%.2fms", micros / 1000.0);
  }

  private String nextResource() {
    List<String> r = plan.resources();
    return r.get((int) Math.floorMod(resourceCursor.getAndIncrement(), (long) r.size()));
  }

  private static RationException rationCause(Throwable t) {
    Throwable c = t;
    while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
      c = c.getCause();
    }
    return c instanceof RationException re ? re : null;
  }

  /**
   * One outstanding request at a time. Its lease fields are touched only by the thread that
   * completes its current request (completions of one slot never overlap), hence volatile for
   * the hand-over between threads rather than a lock.
   */
  private final class Slot {
    final int index;
    final LeaseTarget target;
    final ScheduledExecutorService scheduler;
    final String holder;
    volatile boolean hasLease;
    volatile long leaseId;
    volatile long version;
    Accounting books;
    CountDownLatch stopped;

    Slot(int index, LeaseTarget target, ScheduledExecutorService scheduler) {
      this.index = index;
      this.target = target;
      this.scheduler = scheduler;
      this.holder = plan.holderPrefix() + "-" + index;
    }

    CompletableFuture<Boolean> acquireInitial() {
      return target.acquire(nextResource(), holder).handle((r, err) -> {
        if (err == null && r.outcome() == Outcome.SUCCESS && r.lease() != null) {
          take(r.lease());
          return true;
        }
        return false;
      });
    }

    void take(LeaseView lease) {
      leaseId = lease.leaseId();
      version = lease.version();
      hasLease = true;
    }

    void begin(Accounting books, CountDownLatch stopped) {
      this.books = books;
      this.stopped = stopped;
      next();
    }

    OpKind choose() {
      return switch (plan.workload()) {
        case ACQUIRE -> OpKind.ACQUIRE;
        case RENEW -> hasLease ? OpKind.RENEW : OpKind.REACQUIRE;
        case MIXED -> !hasLease ? OpKind.REACQUIRE
            : ThreadLocalRandom.current().nextDouble() < plan.renewRatio() ? OpKind.RENEW : OpKind.ACQUIRE;
        // Their own benches run these; BenchCommand never hands them to this generator.
        case TTL_PUT, TTL_GET, LIMIT_GET, QUOTA_GET -> throw new IllegalStateException("key-loop workloads run in KeyLoopBench");
        case RESERVE -> throw new IllegalStateException("the reserve workload runs in ReserveBench");
        case RENEW_BATCH, RENEW_SLOTS -> throw new IllegalStateException("renew-batch and renew-slots run in RenewBatchBench");
        case WARM_START -> throw new IllegalStateException("the warm-start workload runs in WarmStartBench");
        case SATURATION -> throw new IllegalStateException("the saturation workload runs in SaturationBench");
        case REBALANCE -> throw new IllegalStateException("the rebalance workload runs in RebalanceBench");
        case NEAR_CACHE -> throw new IllegalStateException("the near-cache workload runs in NearCacheBench");
        case QUOTA_RESERVE, QUOTA_BUDGET, BUDGET_HOLDERS ->
            throw new IllegalStateException("the quota workloads run in QuotaBudgetBench");
      };
    }

    void next() {
      long start = clock.getAsLong();
      if (books.phaseAt(start) == Accounting.Phase.DONE) {
        stopped.countDown();
        return;
      }
      OpKind kind = choose();
      int now = outstanding.incrementAndGet();
      outstandingMax.accumulateAndGet(now, Math::max);
      CompletableFuture<Response.LeaseReply> f;
      AtomicBoolean inCall = new AtomicBoolean(true);
      try {
        f = kind == OpKind.RENEW ? target.renew(leaseId, version) : target.acquire(nextResource(), holder);
      } catch (RuntimeException e) {
        // A target that throws instead of failing its future (a bug or a closed client): count
        // it as an error of that request rather than losing the slot.
        f = CompletableFuture.failedFuture(e);
      }
      f.whenComplete((r, err) -> done(kind, start, r, err, inCall.get()));
      inCall.set(false);
    }

    void done(OpKind kind, long start, Response.LeaseReply r, Throwable err, boolean insideCall) {
      long end = clock.getAsLong();
      outstanding.decrementAndGet();
      boolean error = err != null;
      if (error) {
        RationException re = rationCause(err);
        ErrorCode code = re == null ? ErrorCode.INTERNAL : re.code();
        boolean definite = re != null && re.definite();
        books.recordError(kind, code, definite, start, end);
        // An indeterminate renewal may have moved the lease to a version we never saw; any
        // failed acquire leaves the slot as it was.
        if (kind == OpKind.RENEW && !definite) {
          hasLease = false;
        }
      } else {
        books.recordReply(kind, r.outcome(), start, end);
        afterReply(kind, r);
      }
      if (error) {
        scheduler.schedule(this::next, ERROR_PAUSE_MILLIS, TimeUnit.MILLISECONDS);
      } else if (insideCall) {
        // Completed inside target.renew/acquire on this very call: do not recurse.
        scheduler.execute(this::next);
      } else {
        next();
      }
    }

    void afterReply(OpKind kind, Response.LeaseReply r) {
      boolean ok = r.outcome() == Outcome.SUCCESS && r.lease() != null;
      if (!plan.workload().holdsLeases()) {
        return;
      }
      if (ok) {
        take(r.lease());
      } else if (kind == OpKind.RENEW) {
        hasLease = false;
      }
    }
  }
}
