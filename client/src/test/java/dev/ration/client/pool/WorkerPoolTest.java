package dev.ration.client.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.testkit.Waits;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The pool's contract one behaviour at a time, on real worker threads and the system clock. */
class WorkerPoolTest {
  static final Waits WAIT = Waits.upTo(Duration.ofSeconds(20)).every(Duration.ofMillis(5));
  final List<WorkerPool> pools = new ArrayList<>();
  final CountDownLatch gate = new CountDownLatch(1);

  WorkerPool pool(PoolOptions options) {
    WorkerPool p = new WorkerPool(options, SlotSource.fixed(options.workers()));
    pools.add(p);
    return p;
  }

  /** A job that holds its worker until the test opens the gate. */
  Job<Object> blocked() {
    return a -> {
      gate.await();
      return "released";
    };
  }

  static Instant in(Duration d) {
    return Instant.now().plus(d);
  }

  static <T> JobHandle<T> accepted(SubmitResult<T> r) {
    return assertInstanceOf(SubmitResult.Accepted.class, r, () -> "expected accepted, got " + r).handle();
  }

  @AfterEach
  void stop() throws InterruptedException {
    gate.countDown();
    for (WorkerPool p : pools) {
      p.shutdown(Instant.now().plusSeconds(5), ShutdownPolicy.CANCEL_QUEUED);
    }
  }

  /**
   * A source answering {@link Instant#MIN} holds no valid permission, and so does one whose
   * {@code validUntil()} throws: nothing starts, yet the pool's threads live on (they used to die
   * on {@code Instant.MIN - cancelLead}), and the queued job runs once the source answers a
   * future time again.
   */
  @Test
  void aSourceAnsweringInstantMinOrThrowingStopsNoThread() throws Exception {
    ScriptedSlotSource src = new ScriptedSlotSource(1, Instant.MIN);
    WorkerPool pool = new WorkerPool(PoolOptions.of(1, 4), src);
    pools.add(pool);
    JobHandle<String> h = accepted(pool.submit(a -> "ran", in(Duration.ofSeconds(30))));
    int seen = src.reports.get();
    WAIT.until("three housekeeping rounds with the lease at Instant.MIN", src.reports::get, n -> n >= seen + 3);
    assertEquals(JobState.QUEUED, pool.state(h.id()).orElseThrow(), "no permission, no start");
    assertEquals(1, src.lastUsage.get()[1], "the waiting job is reported");

    src.validUntilFails = new IllegalStateException("source bug");
    int seen2 = src.reports.get();
    WAIT.until("three housekeeping rounds with a throwing source", src.reports::get, n -> n >= seen2 + 3);
    assertEquals(JobState.QUEUED, pool.state(h.id()).orElseThrow());
    assertFalse(pool.isTerminated(), "the workers are alive");

    src.validUntilFails = null;
    src.setValidUntil(Instant.MAX);
    JobResult<String> r = h.result().get(20, TimeUnit.SECONDS);
    assertEquals(JobState.SUCCEEDED, r.state());
    assertEquals("ran", r.value().orElseThrow());
  }

  /** A job's value comes back through its handle and, by id, from the pool's retained results. */
  @Test
  void resultIsCorrelatedByJobId() throws Exception {
    WorkerPool pool = pool(PoolOptions.of(2, 4));
    JobHandle<String> h = accepted(pool.submit(a -> "job " + a.jobId() + " attempt " + a.number(), in(Duration.ofSeconds(10))));
    JobResult<String> r = h.result().get(10, TimeUnit.SECONDS);
    assertEquals(JobState.SUCCEEDED, r.state());
    assertEquals("job " + h.id() + " attempt 1", r.value().orElseThrow());
    assertEquals(h.id(), r.jobId());
    assertEquals(r, pool.result(h.id()).orElseThrow());
    assertEquals(JobState.SUCCEEDED, pool.state(h.id()).orElseThrow());
  }

  /** A deadline that has passed and a stopping pool are definite refusals, with the reason. */
  @Test
  void rejectsAPastDeadlineAndAStoppingPool() throws Exception {
    WorkerPool pool = pool(PoolOptions.of(1, 1));
    SubmitResult<String> late = pool.submit(a -> "x", Instant.now().minusMillis(1));
    assertEquals(SubmitResult.RejectReason.DEADLINE_PASSED,
        assertInstanceOf(SubmitResult.Rejected.class, late).reason());
    pool.shutdown(Instant.now().plusSeconds(5), ShutdownPolicy.DRAIN);
    SubmitResult<String> stopping = pool.submit(a -> "x", in(Duration.ofSeconds(10)));
    assertEquals(SubmitResult.RejectReason.STOPPING,
        assertInstanceOf(SubmitResult.Rejected.class, stopping).reason());
    assertEquals(2, pool.stats().rejected());
    WAIT.until("workers exit after shutdown", pool::isTerminated, t -> t);
  }

  /**
   * With W busy and Q waiting, a submission is Overloaded at once with a positive retry-after;
   * a bounded wait for room ends Overloaded after the wait, or Accepted when a place frees.
   */
  @Test
  void aFullQueueAnswersOverloadedAndABoundedWaitGetsRoom() throws Exception {
    WorkerPool pool = pool(PoolOptions.of(1, 1));
    accepted(pool.submit(blocked(), in(Duration.ofSeconds(30))));
    WAIT.until("the first job runs", () -> pool.stats().running(), n -> n == 1);
    JobHandle<Object> queued = accepted(pool.submit(a -> "second", in(Duration.ofSeconds(30))));
    SubmitResult<Object> now = pool.submit(a -> "third", in(Duration.ofSeconds(30)));
    Duration retryAfter = assertInstanceOf(SubmitResult.Overloaded.class, now).retryAfter();
    assertTrue(retryAfter.compareTo(Duration.ZERO) > 0, "retry-after " + retryAfter);

    long t0 = System.nanoTime();
    SubmitResult<Object> waited = pool.submit(a -> "third", in(Duration.ofSeconds(30)), Duration.ofMillis(50));
    assertInstanceOf(SubmitResult.Overloaded.class, waited);
    assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(50), "returned before its wait");
    assertEquals(2, pool.stats().overloaded());

    Thread submitter = Thread.currentThread();
    Thread canceller = new Thread(() -> {
      // Cancel once the submit below is waiting for room.
      WAIT.until("the submitter waiting for room", submitter::getState, WorkerPoolTest::parked);
      queued.cancel();
    });
    canceller.start();
    SubmitResult<Object> room = pool.submit(a -> "third", in(Duration.ofSeconds(30)), Duration.ofSeconds(10));
    canceller.join();
    accepted(room);
  }

  /** A queued job that is cancelled never runs; its future says CANCELLED at once. */
  @Test
  void cancellingAQueuedJobDropsIt() throws Exception {
    WorkerPool pool = pool(PoolOptions.of(1, 10));
    accepted(pool.submit(blocked(), in(Duration.ofSeconds(30))));
    AtomicBoolean ran = new AtomicBoolean();
    JobHandle<Object> h = accepted(pool.submit(a -> ran.getAndSet(true), in(Duration.ofSeconds(30))));
    assertEquals(JobState.QUEUED, h.state());
    assertTrue(h.cancel());
    assertEquals(JobState.CANCELLED, h.result().get(10, TimeUnit.SECONDS).state());
    assertFalse(h.cancel(), "a job that ended cannot be cancelled again");
    gate.countDown();
    pool.shutdown(Instant.now().plusSeconds(10), ShutdownPolicy.DRAIN);
    assertFalse(ran.get(), "the cancelled job ran");
  }

  /**
   * A running job sees its token cancelled and its registered callback run (here: it unblocks
   * the job's "I/O"); a job that stops by throwing ends CANCELLED.
   */
  @Test
  void cancellingARunningJobSignalsItsToken() throws Exception {
    WorkerPool pool = pool(PoolOptions.of(1, 1));
    CountDownLatch io = new CountDownLatch(1);
    JobHandle<Object> h = accepted(pool.submit(a -> {
      try (CancellationToken.Registration r = a.token().onCancel(io::countDown)) {
        io.await();
      }
      a.token().throwIfCancelled();
      return "not cancelled";
    }, in(Duration.ofSeconds(30))));
    WAIT.until("the job runs", h::state, s -> s == JobState.RUNNING);
    assertTrue(h.cancel());
    JobResult<Object> r = h.result().get(10, TimeUnit.SECONDS);
    assertEquals(JobState.CANCELLED, r.state());
    java.util.concurrent.CancellationException c =
        assertInstanceOf(java.util.concurrent.CancellationException.class, r.failure().orElseThrow());
    assertTrue(c.getMessage().contains("CANCELLED"), c.getMessage());
  }

  /**
   * Retryable failures are retried up to maxAttempts with full-jitter backoff whose cap doubles;
   * the job sees each attempt's number; a permanent failure is not retried.
   */
  @Test
  void retriesAreBoundedAndBackOffWithJitter() throws Exception {
    List<Long> caps = new CopyOnWriteArrayList<>();
    PoolOptions options = PoolOptions.of(2, 4).withRetries(4, Duration.ofMillis(2), Duration.ofMillis(5))
        .withJitter(bound -> {
          caps.add(bound);
          return bound / 2;
        });
    WorkerPool pool = pool(options);
    List<Integer> seen = new CopyOnWriteArrayList<>();
    JobHandle<Object> h = accepted(pool.submit(a -> {
      seen.add(a.number());
      assertEquals(4, a.maxAttempts());
      throw new RetryableJobException("downstream busy on attempt " + a.number());
    }, in(Duration.ofSeconds(30))));
    JobResult<Object> r = h.result().get(10, TimeUnit.SECONDS);
    assertEquals(JobState.FAILED, r.state());
    assertEquals(4, r.attempts());
    assertEquals(List.of(1, 2, 3, 4), seen);
    assertEquals(List.of(2_000_000L, 4_000_000L, 5_000_000L), caps, "caps double from base to max");
    assertEquals(3, pool.stats().retries());

    AtomicInteger permanent = new AtomicInteger();
    JobHandle<Object> p = accepted(pool.submit(a -> {
      permanent.incrementAndGet();
      throw new IllegalArgumentException("bad input");
    }, in(Duration.ofSeconds(30))));
    JobResult<Object> pr = p.result().get(10, TimeUnit.SECONDS);
    assertEquals(JobState.FAILED, pr.state());
    assertEquals(1, permanent.get());
    assertInstanceOf(IllegalArgumentException.class, pr.failure().orElseThrow());
  }

  /** A custom classifier decides retryability from the job's failure. */
  @Test
  void aClassifierDecidesWhatIsRetryable() throws Exception {
    WorkerPool pool = pool(PoolOptions.of(1, 1).withRetries(3, Duration.ofMillis(1), Duration.ofMillis(2)))
        .classifyingFailuresWith(f -> f instanceof java.io.IOException);
    AtomicInteger runs = new AtomicInteger();
    JobHandle<Object> h = accepted(pool.submit(a -> {
      if (runs.incrementAndGet() < 3) {
        throw new java.io.IOException("reset");
      }
      return "third time";
    }, in(Duration.ofSeconds(30))));
    JobResult<Object> r = h.result().get(10, TimeUnit.SECONDS);
    assertEquals(JobState.SUCCEEDED, r.state());
    assertEquals(3, r.attempts());
  }

  /** A job whose deadline passes while it waits fails without running. */
  @Test
  void aJobWhoseDeadlinePassesInTheQueueFailsWithoutRunning() throws Exception {
    ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    WorkerPool pool = pool(PoolOptions.of(1, 2).withClock(clock));
    accepted(pool.submit(blocked(), clock.instant().plusSeconds(3600)));
    AtomicBoolean ran = new AtomicBoolean();
    JobHandle<Object> h = accepted(pool.submit(a -> ran.getAndSet(true), clock.instant().plusSeconds(1)));
    clock.advance(Duration.ofSeconds(2));
    gate.countDown();
    JobResult<Object> r = h.result().get(10, TimeUnit.SECONDS);
    assertEquals(JobState.FAILED, r.state());
    assertInstanceOf(JobDeadlineExceededException.class, r.failure().orElseThrow());
    assertEquals(0, r.attempts());
    assertFalse(ran.get());
  }

  /** Results are kept for the newest resultsRetained jobs only. */
  @Test
  void retentionKeepsTheNewestResults() throws Exception {
    WorkerPool pool = pool(PoolOptions.of(1, 10).withRetention(3, Duration.ofMinutes(1)));
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      JobHandle<Integer> h = accepted(pool.submit(a -> 7, in(Duration.ofSeconds(30))));
      h.result().get(10, TimeUnit.SECONDS);
      ids.add(h.id());
    }
    assertTrue(pool.result(ids.get(0)).isEmpty());
    assertTrue(pool.result(ids.get(1)).isEmpty());
    for (long id : ids.subList(2, 5)) {
      assertTrue(pool.result(id).isPresent(), "result of " + id);
    }
    assertTrue(pool.state(ids.get(0)).isEmpty(), "a forgotten job has no state");
  }

  /** Results older than resultsRetainedFor are dropped on the housekeeping tick. */
  @Test
  void retentionDropsOldResults() throws Exception {
    ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    WorkerPool pool = pool(PoolOptions.of(1, 10).withRetention(100, Duration.ofSeconds(60)).withClock(clock));
    JobHandle<Integer> h = accepted(pool.submit(a -> 7, clock.instant().plusSeconds(3600)));
    h.result().get(10, TimeUnit.SECONDS);
    assertTrue(pool.result(h.id()).isPresent());
    clock.advance(Duration.ofSeconds(61));
    WAIT.until("the old result is dropped", () -> pool.result(h.id()), r -> r.isEmpty());
  }

  /**
   * DRAIN runs the queue until the deadline; at the deadline jobs that ignore their token are
   * abandoned (token cancelled) and the jobs still queued behind them are cancelled. Each job
   * live at the call appears in exactly one list; jobs that ended before it appear in none.
   */
  @Test
  void shutdownReportsFinishedCancelledAndAbandoned() throws Exception {
    WorkerPool pool = pool(PoolOptions.of(2, 10));
    JobHandle<Integer> before = accepted(pool.submit(a -> 1, in(Duration.ofSeconds(30))));
    before.result().get(10, TimeUnit.SECONDS);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean tokenSeen = new AtomicBoolean();
    Job<Object> ignoresToken = a -> {
      gate.await(); // like uninterruptible I/O
      tokenSeen.set(a.token().isCancelled());
      return "late";
    };
    JobHandle<Object> stuck = accepted(pool.submit(ignoresToken, in(Duration.ofSeconds(30))));
    JobHandle<Object> finisher = accepted(pool.submit(a -> {
      release.await();
      return "done";
    }, in(Duration.ofSeconds(30))));
    JobHandle<Object> stuckToo = accepted(pool.submit(ignoresToken, in(Duration.ofSeconds(30))));
    JobHandle<Integer> behind = accepted(pool.submit(a -> 3, in(Duration.ofSeconds(30))));
    WAIT.until("two jobs run", () -> pool.stats().running(), n -> n == 2);

    // The finisher is released once the shutdown has taken the live jobs and waits for them:
    // released earlier, it could end before the call and belong in no list.
    Thread caller = Thread.currentThread();
    Thread releaser = new Thread(() -> {
      WAIT.until("the shutdown waits for its jobs", caller::getState, s -> s == Thread.State.TIMED_WAITING);
      release.countDown();
    });
    releaser.start();
    ShutdownReport report = pool.shutdown(Instant.now().plusMillis(300), ShutdownPolicy.DRAIN);
    releaser.join();
    assertEquals(List.of(finisher.id()), report.finished());
    assertEquals(List.of(behind.id()), report.cancelled());
    assertEquals(List.of(stuck.id(), stuckToo.id()), report.abandoned().stream().sorted().toList());
    assertEquals(JobState.CANCELLED, behind.result().get(10, TimeUnit.SECONDS).state());
    gate.countDown();
    assertEquals(JobState.SUCCEEDED, stuck.result().get(10, TimeUnit.SECONDS).state(),
        "a job that returns after its token was cancelled still succeeded");
    assertTrue(tokenSeen.get());
    WAIT.until("workers exit", pool::isTerminated, t -> t);
  }

  /** CANCEL_QUEUED drops the queue at once; the running job finishes and is reported finished. */
  @Test
  void shutdownCancelQueuedDropsTheQueue() throws Exception {
    WorkerPool pool = pool(PoolOptions.of(1, 10));
    CountDownLatch started = new CountDownLatch(1);
    JobHandle<Object> running = accepted(pool.submit(a -> {
      started.countDown();
      try (CancellationToken.Registration r = a.token().onCancel(gate::countDown)) {
        gate.await(20, TimeUnit.SECONDS);
      }
      return "finished";
    }, in(Duration.ofSeconds(30))));
    List<Long> queued = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      queued.add(accepted(pool.submit(a -> "never", in(Duration.ofSeconds(30)))).id());
    }
    assertTrue(started.await(10, TimeUnit.SECONDS));
    Thread shutter = Thread.currentThread();
    Thread releaser = new Thread(() -> {
      // Let the running job finish once shutdown is waiting for it.
      WAIT.until("shutdown waiting for the running job", shutter::getState, WorkerPoolTest::parked);
      gate.countDown();
    });
    releaser.start();
    ShutdownReport report = pool.shutdown(Instant.now().plusSeconds(10), ShutdownPolicy.CANCEL_QUEUED);
    releaser.join();
    assertEquals(queued, report.cancelled().stream().sorted().toList());
    assertEquals(List.of(running.id()), report.finished());
    assertEquals(List.of(), report.abandoned());
  }

  /** Bad options fail at construction and name the bad value. */
  @Test
  void badOptionsAreRefusedWithTheValue() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PoolOptions.of(0, 1));
    assertTrue(e.getMessage().contains("workers 0"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> PoolOptions.of(1, -1));
    assertTrue(e.getMessage().contains("queueCapacity -1"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> PoolOptions.of(1, 0));
    assertTrue(e.getMessage().contains("queueCapacity 0"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> PoolOptions.of(1, 1).withRetries(0, Duration.ofMillis(1), Duration.ofMillis(1)));
    assertTrue(e.getMessage().contains("maxAttempts 0"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> SlotSource.fixed(-1));
    assertTrue(e.getMessage().contains("-1"), e.getMessage());
  }

  /**
   * A source answering Instant.MIN (nothing valid, the earliest instant there is) stops the pool
   * from starting jobs without breaking it: once the source is valid again the queued job runs.
   */
  @Test
  void aSourceValidUntilTheEarliestInstantStartsNothingAndThePoolSurvives() throws Exception {
    ScriptedSlotSource slots = new ScriptedSlotSource(2, Instant.MIN);
    WorkerPool p = new WorkerPool(PoolOptions.of(2, 4), slots);
    pools.add(p);
    JobHandle<Object> h = accepted(p.submit(a -> "ran", in(Duration.ofSeconds(30))));
    // An observation window in which the job must not start.
    Thread.sleep(200);
    assertEquals(JobState.QUEUED, h.state());
    slots.setValidUntil(Instant.MAX);
    assertEquals(JobState.SUCCEEDED, h.result().get(10, TimeUnit.SECONDS).state());
  }

  private static boolean parked(Thread.State state) {
    return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
  }
}
