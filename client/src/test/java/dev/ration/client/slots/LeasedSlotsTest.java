package dev.ration.client.slots;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.pool.CancellationToken;
import dev.ration.client.pool.Job;
import dev.ration.client.pool.JobState;
import dev.ration.client.pool.PoolOptions;
import dev.ration.client.pool.ShutdownPolicy;
import dev.ration.client.pool.SubmitResult;
import dev.ration.client.pool.WorkerPool;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.client.transport.Transport;
import dev.ration.testkit.Waits;
import dev.ration.wire.Outcome;
import dev.ration.wire.lease.SlotLease;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@link LeasedSlots} under a pool, against a scripted transport: the pool's concurrency follows
 * the lease's slot share, every renewal carries the release promise, and when renewals fail the
 * pool starts nothing more, cancels running jobs before the lease's local end and reports a job
 * that ignores cancellation as an overrun.
 */
class LeasedSlotsTest {
  static final Waits WAIT = Waits.upTo(Duration.ofSeconds(30)).every(Duration.ofMillis(5));
  static final long LEASE_MILLIS = 800;

  /** Grants one lease of {@code share.get()} slots, then answers renewals as scripted. */
  static final class Scripted implements Transport {
    final AtomicInteger share = new AtomicInteger(3);
    final AtomicInteger acquires = new AtomicInteger();
    final AtomicReference<String> renewals = new AtomicReference<>("answer");
    final List<Request.SlotRenewal> sent = new CopyOnWriteArrayList<>();
    final AtomicLong version = new AtomicLong(1);
    final AtomicLong ids = new AtomicLong();

    SlotLease lease() {
      return new SlotLease(7, "t", "r", "h", 1, version.incrementAndGet(), share.get(),
          share.get(), 0, LEASE_MILLIS, LEASE_MILLIS + 100, LEASE_MILLIS);
    }

    @Override
    public CompletableFuture<Response> call(Request request) {
      return call(request, Response.class);
    }

    @Override
    public long nextRequestId() {
      return ids.incrementAndGet();
    }

    /** Acquires as sent: request id and request. */
    final List<Long> acquireIds = new CopyOnWriteArrayList<>();
    final List<Request> acquireRequests = new CopyOnWriteArrayList<>();
    /** Set: the first acquire's reply is lost (after running {@link #onLostReply}). */
    final java.util.concurrent.atomic.AtomicBoolean loseFirstAcquire =
        new java.util.concurrent.atomic.AtomicBoolean();
    volatile Runnable onLostReply = () -> {};

    @Override
    public <T extends Response> CompletableFuture<T> call(long requestId, Request request,
        Class<T> replyType) {
      if (request instanceof Request.AcquireSlots) {
        acquireIds.add(requestId);
        acquireRequests.add(request);
        if (loseFirstAcquire.compareAndSet(true, false)) {
          onLostReply.run();
          return CompletableFuture.failedFuture(new IllegalStateException("deadline exceeded"));
        }
      }
      return call(request, replyType);
    }

    @Override
    public <T extends Response> CompletableFuture<T> call(Request request, Class<T> replyType) {
      Response reply;
      if (request instanceof Request.AcquireSlots) {
        if (acquires.incrementAndGet() > 1) {
          return CompletableFuture.failedFuture(new IllegalStateException("cluster unreachable"));
        }
        reply = new Response.SlotLeaseReply(Outcome.SUCCESS, "", 0, 2, lease());
      } else if (request instanceof Request.RenewSlots r) {
        sent.addAll(r.renewals());
        if (renewals.get().equals("fail")) {
          return CompletableFuture.failedFuture(new IllegalStateException("cluster unreachable"));
        }
        SlotLease l = lease();
        reply = new Response.SlotRenewalsReply(Outcome.SUCCESS, "", List.of(
            new Response.SlotLeaseReply(Outcome.SUCCESS, "", 0, l.version(), l)));
      } else if (request instanceof Request.ReturnLease r) {
        reply = new Response.ReturnReply(Outcome.SUCCESS, "", r.leaseId(), 0, false);
      } else {
        return CompletableFuture.failedFuture(new IllegalStateException("unexpected " + request));
      }
      return CompletableFuture.completedFuture(replyType.cast(reply));
    }
  }

  /**
   * Goal: an acquire that failed without an answer is resent as it was, under its request id
   * (so one applied late is answered by the coordinator, not left as a lease nobody holds), and
   * the grant's local life counts from that first attempt, the earliest the ledger can have
   * granted it; the next acquire after an answer is a new request.
   */
  @Test
  void anUnansweredAcquireIsResentAndItsGrantLivesFromTheFirstAttempt() throws Exception {
    AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-12-07T12:00:00Z"));
    Instant first = now.get();
    java.time.Clock clock = clockOf(now);
    Scripted t = new Scripted();
    t.loseFirstAcquire.set(true);
    // The next attempt is sent 500 ms after the first on the holder's clock.
    t.onLostReply = () -> now.set(first.plusMillis(500));
    LeasedSlots slots = LeasedSlots.start(
        new dev.ration.client.slots.internal.LimitSlotLedger(t, "t", "r", "h"), 5, clock);
    try {
      WAIT.until("the lease", slots::permits, p -> p > 0);
      assertEquals(2, t.acquireIds.size());
      assertEquals(t.acquireIds.get(0), t.acquireIds.get(1), "the resend keeps the request id");
      assertTrue(t.acquireRequests.get(0) == t.acquireRequests.get(1),
          "the resend is the same request");
      Instant end = slots.validUntil();
      assertTrue(!end.isAfter(first.plusMillis(LEASE_MILLIS)),
          "local end " + end + " counted from the resend, not from the first attempt " + first);
      assertTrue(end.isAfter(first), "local end " + end);
    } finally {
      slots.close();
    }
  }

  /** A clock that reads {@code now}. */
  static java.time.Clock clockOf(AtomicReference<Instant> now) {
    return new java.time.Clock() {
      @Override
      public Instant instant() {
        return now.get();
      }

      @Override
      public java.time.ZoneId getZone() {
        return java.time.ZoneOffset.UTC;
      }

      @Override
      public java.time.Clock withZone(java.time.ZoneId zone) {
        return this;
      }
    };
  }

  /**
   * Goal: an unanswered acquire is resent only within the resend window (inside the
   * coordinator's idempotency retention); after it, a new request under a new id is sent and the
   * grant's life counts from that one.
   */
  @Test
  void anAcquireUnansweredPastTheResendWindowIsReplacedByANewOne() throws Exception {
    AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-12-07T12:00:00Z"));
    Instant later = now.get().plus(LeasedSlots.RESEND_WINDOW).plusSeconds(1);
    Scripted t = new Scripted();
    t.loseFirstAcquire.set(true);
    t.onLostReply = () -> now.set(later);
    LeasedSlots slots = LeasedSlots.start(
        new dev.ration.client.slots.internal.LimitSlotLedger(t, "t", "r", "h"), 5, clockOf(now));
    try {
      WAIT.until("the lease", slots::permits, p -> p > 0);
      assertEquals(2, t.acquireIds.size());
      assertTrue(!t.acquireIds.get(0).equals(t.acquireIds.get(1)), "a new request id");
      assertTrue(slots.validUntil().isAfter(later), "counted from the new request");
    } finally {
      slots.close();
    }
  }

  /**
   * Goal: the promise counts every attempt the pool told of, even ones it started since its last
   * usage report (each tick), so a renewal never promises fewer jobs than are running.
   */
  @Test
  void thePromiseCountsAttemptsStartedSinceTheLastReport() throws Exception {
    Scripted t = new Scripted();
    t.share.set(5);
    try (LeasedSlots slots = LeasedSlots.start(t, "t", "r", "h", 5)) {
      WAIT.until("the first lease", slots::permits, p -> p == 5);
      slots.reportUsage(0, 0); // the pool's last tick: idle
      for (int i = 0; i < 4; i++) {
        slots.attemptStarted(); // then four start before the next tick
      }
      int before = t.sent.size();
      slots.reportUsage(0, 0); // a stale report, as a tick racing the starts would give
      WAIT.until("a renewal", () -> t.sent.size(), n -> n > before);
      Request.SlotRenewal r = t.sent.get(t.sent.size() - 1);
      assertTrue(r.release() >= 4, "promised " + r.release() + " with four running");
      assertEquals(4, r.running());
      slots.attemptEnded();
      slots.attemptEnded();
      // A renewal already on its way may still carry four; a later one carries two.
      WAIT.until("a renewal that reports two running",
          () -> t.sent.get(t.sent.size() - 1).running(), n -> n == 2);
    }
  }

  /** Goal: the pool runs at most the share, shrinks with it, and says what it will use. */
  @Test
  void concurrencyFollowsTheShareAndRenewalsCarryThePromise() throws Exception {
    Scripted t = new Scripted();
    LeasedSlots slots = LeasedSlots.start(t, "t", "r", "h", 5);
    WorkerPool pool = new WorkerPool(PoolOptions.of(5, 100), slots);
    AtomicInteger concurrent = new AtomicInteger();
    AtomicInteger max = new AtomicInteger();
    Job<Integer> job = a -> {
      max.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
      // 20 ms of work, or less once the job is cancelled.
      java.util.concurrent.CountDownLatch cancelled = new java.util.concurrent.CountDownLatch(1);
      try (CancellationToken.Registration r = a.token().onCancel(cancelled::countDown)) {
        cancelled.await(20, java.util.concurrent.TimeUnit.MILLISECONDS);
        return 1;
      } finally {
        concurrent.decrementAndGet();
      }
    };
    try {
      WAIT.until("the first lease", slots::permits, p -> p == 3);
      for (int i = 0; i < 60; i++) {
        pool.submit(job, Instant.now().plusSeconds(20));
      }
      WAIT.until("renewals reporting demand", () -> t.sent.size(), n -> n >= 2);
      assertTrue(max.get() <= 3, "max " + max.get() + " with a share of 3");
      t.share.set(1);
      WAIT.until("the shrink", slots::share, s -> s == 1);
      // Jobs running when the share shrank finish (a shrink cancels nothing); none start beyond it.
      // Counting starts once those have finished: until then the jobs still running from the
      // larger share would count towards the maximum of one started after the shrink.
      WAIT.until("the jobs beyond the new share finished", concurrent::get, c -> c <= 1);
      max.set(0);
      for (int i = 0; i < 20; i++) {
        pool.submit(job, Instant.now().plusSeconds(20));
      }
      WAIT.until("the queue drained", () -> pool.stats().queued(), q -> q == 0);
      assertTrue(max.get() <= 1, "after the shrink: " + max.get());
      for (Request.SlotRenewal r : t.sent) {
        assertTrue(r.release() >= r.running(), "promise " + r.release() + " below running "
            + r.running());
        assertTrue(r.release() <= Math.max(r.running(), 3), "promise above the share: " + r);
      }
    } finally {
      pool.shutdown(Instant.now().plusSeconds(5), ShutdownPolicy.CANCEL_QUEUED);
      slots.close();
    }
  }

  /**
   * Goal: renewals fail: nothing starts after the lease ends, running jobs are cancelled before
   * its local end, and a job that ignores cancellation is reported as an overrun.
   */
  @Test
  void failedRenewalsCancelBeforeTheEndAndReportOverruns() throws Exception {
    Scripted t = new Scripted();
    LeasedSlots slots = LeasedSlots.start(t, "t", "r", "h", 4);
    WorkerPool pool = new WorkerPool(
        PoolOptions.of(4, 100).withCancelLead(Duration.ofMillis(200)), slots);
    AtomicReference<Instant> cancelledAt = new AtomicReference<>();
    try {
      Job<Integer> honours = a -> {
        java.util.concurrent.CountDownLatch cancelled = new java.util.concurrent.CountDownLatch(1);
        try (CancellationToken.Registration r = a.token().onCancel(cancelled::countDown)) {
          if (!cancelled.await(30, java.util.concurrent.TimeUnit.SECONDS)) {
            throw new IllegalStateException("never cancelled");
          }
        }
        cancelledAt.set(Instant.now());
        return 0;
      };
      // Ignores cancellation and interrupts: runs until the test lets it end, after the lease.
      java.util.concurrent.CountDownLatch letIgnorerEnd = new java.util.concurrent.CountDownLatch(1);
      Job<Integer> ignores = a -> {
        long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (letIgnorerEnd.getCount() > 0 && System.nanoTime() < until) {
          try {
            letIgnorerEnd.await(until - System.nanoTime(), java.util.concurrent.TimeUnit.NANOSECONDS);
          } catch (InterruptedException ignored) {
            // a job that ignores cancellation
          }
        }
        return 0;
      };
      var h1 = ((SubmitResult.Accepted<Integer>) pool.submit(honours, Instant.now().plusSeconds(20))).handle();
      var h2 = ((SubmitResult.Accepted<Integer>) pool.submit(ignores, Instant.now().plusSeconds(20))).handle();
      WAIT.until("both running", () -> h1.state() == JobState.RUNNING && h2.state() == JobState.RUNNING,
          x -> x);
      // From now on the cluster cannot be reached: the lease runs out.
      t.renewals.set("fail");
      WAIT.until("a renewal failed", slots::renewalsFailed, n -> n >= 1);
      Instant end = slots.validUntil();
      WAIT.until("the honouring job cancelled", cancelledAt::get, x -> x != null);
      assertTrue(cancelledAt.get().isBefore(end), "cancelled at " + cancelledAt.get()
          + ", lease end " + end);
      WAIT.until("the lease lapsed", slots::permits, p -> p == 0);
      var h3 = ((SubmitResult.Accepted<Integer>) pool.submit(honours, Instant.now().plusSeconds(20))).handle();
      WAIT.until("past the lease's local end", Instant::now, now -> now.isAfter(end));
      letIgnorerEnd.countDown();
      WAIT.until("the ignoring job ended", () -> h2.state(), s -> s.isTerminal());
      assertTrue(pool.overrunJobIds().contains(h2.id()), "overruns " + pool.overrunJobIds());
      assertEquals(JobState.QUEUED, h3.state(), "nothing starts without a lease");
      assertTrue(h1.state().isTerminal());
      assertTrue(slots.renewalsFailed() >= 1);
      assertEquals(1, slots.leasesLost());
    } finally {
      pool.shutdown(Instant.now().plusSeconds(5), ShutdownPolicy.CANCEL_QUEUED);
      slots.close();
    }
  }
}
