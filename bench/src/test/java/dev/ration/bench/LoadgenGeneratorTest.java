package dev.ration.bench;

import dev.ration.wire.Mode;

import dev.ration.wire.lease.LeaseView;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.wire.Outcome;
import dev.ration.protocol.Response;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The closed loop against a fake ledger (no cluster): it keeps exactly the configured number of
 * requests outstanding, stops by itself, renews with the version it last got, reacquires a lost
 * lease, survives synchronous completions and errors. Asserts counts, never timings.
 */
class LoadgenGeneratorTest {
  final ScheduledExecutorService replies = Executors.newScheduledThreadPool(2);
  final StringWriter progress = new StringWriter();

  @AfterEach
  void stop() throws InterruptedException {
    replies.shutdownNow();
    replies.awaitTermination(5, TimeUnit.SECONDS);
  }

  LoadPlan plan(Workload w, int inFlight) {
    return new LoadPlan(w, 0.5, inFlight, Duration.ofMillis(100), Duration.ofMillis(300), List.of("r0", "r1", "r2"),
        "h", Duration.ofMillis(100), Duration.ofSeconds(5), Duration.ofSeconds(5));
  }

  LoadGenerator.Run run(List<LeaseTarget> targets, LoadPlan plan) throws InterruptedException {
    return new LoadGenerator(targets, plan, System::nanoTime, new PrintWriter(progress, true)).run();
  }

  /**
   * A tiny ledger: leases with versions; renew succeeds only when the presented version is the
   * current one; every {@code expireEvery}-th renewal finds its lease expired (and forgets it).
   * Replies complete later on another thread, or at once when {@code synchronous}.
   */
  final class FakeLedger implements LeaseTarget {
    final Map<Long, Long> versions = new ConcurrentHashMap<>();
    final AtomicLong ids = new AtomicLong(1);
    final AtomicLong versionSeq = new AtomicLong(1);
    final AtomicInteger outstanding = new AtomicInteger();
    final AtomicInteger maxOutstanding = new AtomicInteger();
    final AtomicLong renewals = new AtomicLong();
    final AtomicLong mismatches = new AtomicLong();
    final Map<String, AtomicLong> acquiresByResource = new ConcurrentHashMap<>();
    final int expireEvery;
    final boolean synchronous;
    final boolean failRenewals;

    FakeLedger(int expireEvery, boolean synchronous, boolean failRenewals) {
      this.expireEvery = expireEvery;
      this.synchronous = synchronous;
      this.failRenewals = failRenewals;
    }

    @Override
    public CompletableFuture<Response.LeaseReply> acquire(String resource, String holder) {
      acquiresByResource.computeIfAbsent(resource, k -> new AtomicLong()).incrementAndGet();
      long id = ids.getAndIncrement();
      long v = versionSeq.getAndIncrement();
      versions.put(id, v);
      return reply(new Response.LeaseReply(Outcome.SUCCESS, "", 0, v, lease(id, v, resource, holder), 0));
    }

    @Override
    public CompletableFuture<Response.LeaseReply> renew(long leaseId, long presentedVersion) {
      if (failRenewals) {
        return later(CompletableFuture.failedFuture(new IllegalStateException("injected")));
      }
      long n = renewals.incrementAndGet();
      Long current = versions.get(leaseId);
      if (current == null) {
        return reply(new Response.LeaseReply(Outcome.LEASE_UNKNOWN, "", 0, 0, null, 0));
      }
      if (current != presentedVersion) {
        mismatches.incrementAndGet();
        return reply(new Response.LeaseReply(Outcome.VERSION_MISMATCH, "", 0, current, null, 0));
      }
      if (expireEvery > 0 && n % expireEvery == 0) {
        versions.remove(leaseId);
        return reply(new Response.LeaseReply(Outcome.LEASE_EXPIRED, "", 0, current, null, 0));
      }
      long v = versionSeq.getAndIncrement();
      versions.put(leaseId, v);
      return reply(new Response.LeaseReply(Outcome.SUCCESS, "", 0, v, lease(leaseId, v, "r", "h"), 0));
    }

    CompletableFuture<Response.LeaseReply> reply(Response.LeaseReply r) {
      return later(CompletableFuture.completedFuture(r));
    }

    CompletableFuture<Response.LeaseReply> later(CompletableFuture<Response.LeaseReply> result) {
      if (synchronous) {
        return result;
      }
      int now = outstanding.incrementAndGet();
      maxOutstanding.accumulateAndGet(now, Math::max);
      CompletableFuture<Response.LeaseReply> f = new CompletableFuture<>();
      // Replies come late enough that every slot is outstanding at once, even on a loaded machine.
      replies.schedule(() -> {
        outstanding.decrementAndGet();
        result.whenComplete((r, e) -> {
          if (e != null) {
            f.completeExceptionally(e);
          } else {
            f.complete(r);
          }
        });
      }, 20, TimeUnit.MILLISECONDS);
      return f;
    }

    LeaseView lease(long id, long v, String resource, String holder) {
      return new LeaseView(id, "t", resource, holder, 1, v, 1, 1, 1, 1, 0, 2000, 2500, Mode.HARD, 0, 2000);
    }
  }

  /** Goal: acquire keeps exactly in-flight requests outstanding, spreads over the limits, stops. */
  @Test
  void acquireKeepsTheLoopClosedAndStops() throws InterruptedException {
    FakeLedger ledger = new FakeLedger(0, false, false);
    LoadGenerator.Run run = run(List.of(ledger, ledger), plan(Workload.ACQUIRE, 8));

    assertEquals(0, run.abandoned(), "every slot stopped by itself");
    assertEquals(8, run.maxOutstanding(), "closed loop: never more than in-flight");
    assertTrue(ledger.maxOutstanding.get() <= 8, "fake saw " + ledger.maxOutstanding.get());
    Accounting.Results r = run.results();
    assertTrue(r.succeeded() > 0, "measured acquires: " + r);
    assertEquals(r.succeeded(), r.kind(OpKind.ACQUIRE).succeeded());
    assertEquals(0, r.kind(OpKind.RENEW).replies() + r.kind(OpKind.REACQUIRE).replies());
    assertEquals(0, r.errors());
    assertEquals(0.3, r.windowSeconds(), 1e-9);
    assertEquals(3, ledger.acquiresByResource.size(), "load spread over every limit");
    assertEquals(0, ledger.outstanding.get(), "nothing outstanding after the run");
    assertEquals(0, run.setupLeases() + run.setupFailures(), "acquire runs hold no initial leases");
    assertTrue(progress.toString().contains("bench "), "progress lines printed: " + progress);
  }

  /** Goal: every renewal presents the version the slot last got, so none is a mismatch. */
  @Test
  void renewPresentsTheLatestVersion() throws InterruptedException {
    FakeLedger ledger = new FakeLedger(0, false, false);
    LoadGenerator.Run run = run(List.of(ledger), plan(Workload.RENEW, 4));

    assertEquals(4, run.setupLeases());
    assertEquals(0, run.setupFailures());
    assertEquals(0, ledger.mismatches.get());
    Accounting.Results r = run.results();
    assertTrue(r.kind(OpKind.RENEW).succeeded() > 0, "renewals measured: " + r);
    assertEquals(r.kind(OpKind.RENEW).replies(), r.kind(OpKind.RENEW).succeeded());
    assertEquals(0, r.kind(OpKind.REACQUIRE).replies());
    assertEquals(0, r.kind(OpKind.ACQUIRE).replies());
  }

  /** Goal: a lost lease is reacquired (counted apart) and its new version renewed from then on. */
  @Test
  void expiredLeaseIsReacquired() throws InterruptedException {
    FakeLedger ledger = new FakeLedger(7, false, false);
    LoadGenerator.Run run = run(List.of(ledger), plan(Workload.RENEW, 4));

    Accounting.Results r = run.results();
    Accounting.KindResults renew = r.kind(OpKind.RENEW);
    assertTrue(renew.outcomes().getOrDefault("LEASE_EXPIRED", 0L) > 0, "expiries injected: " + renew);
    assertTrue(r.kind(OpKind.REACQUIRE).succeeded() > 0, "reacquired: " + r);
    assertEquals(0, ledger.mismatches.get(), "after a reacquire the new lease's version is presented");
    assertEquals(0, renew.outcomes().getOrDefault("LEASE_UNKNOWN", 0L));
  }

  /** Goal: replies that complete inside the call do not recurse (no StackOverflowError). */
  @Test
  void synchronousRepliesDoNotRecurse() throws InterruptedException {
    FakeLedger ledger = new FakeLedger(0, true, false);
    LoadGenerator.Run run = run(List.of(ledger), plan(Workload.MIXED, 2));

    assertEquals(0, run.abandoned());
    Accounting.Results r = run.results();
    assertTrue(r.kind(OpKind.RENEW).succeeded() > 0 && r.kind(OpKind.ACQUIRE).succeeded() > 0, "mixed ran: " + r);
    assertEquals(0, ledger.mismatches.get());
  }

  /** Goal: failed renewals are counted as errors (indeterminate: not a RationException), reacquired, bounded. */
  @Test
  void errorsAreCountedAndTheSlotRecovers() throws InterruptedException {
    FakeLedger ledger = new FakeLedger(0, false, true);
    LoadGenerator.Run run = run(List.of(ledger), plan(Workload.RENEW, 2));

    assertEquals(0, run.abandoned());
    Accounting.KindResults renew = run.results().kind(OpKind.RENEW);
    assertTrue(renew.errors() > 0, "errors counted: " + renew);
    assertEquals(renew.errors(), renew.indeterminate());
    assertEquals(Map.of("INTERNAL", renew.errors()), renew.errorCodes());
    assertTrue(run.results().kind(OpKind.REACQUIRE).succeeded() > 0, "slots reacquired after the indeterminate renewals");
  }
}
