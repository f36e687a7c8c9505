package dev.ration.client.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.testkit.Waits;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Drills: the pool under the conditions a service meets on a bad day, each bounded in count and
 * time. Real worker threads and the system clock; the concurrency checks count inside the jobs,
 * so they see what the downstream would see.
 */
class PoolDrillTest {
  static final Waits WAIT = Waits.upTo(Duration.ofSeconds(60)).every(Duration.ofMillis(5));

  /**
   * Downstream outage: every attempt is slow and fails retryably. Each job gets exactly
   * maxAttempts attempts, with full-jitter delays under the doubling cap; concurrency never
   * exceeds W; the queue fills, so submissions come back Overloaded and the oldest queued job's
   * age grows.
   */
  @Test
  void downstreamOutage() throws Exception {
    List<long[]> delays = new CopyOnWriteArrayList<>(); // {cap, chosen}
    PoolOptions options = PoolOptions.of(4, 16).withRetries(3, Duration.ofMillis(4), Duration.ofMillis(40))
        .withJitter(cap -> {
          long chosen = ThreadLocalRandom.current().nextLong(cap + 1);
          delays.add(new long[] {cap, chosen});
          return chosen;
        });
    WorkerPool pool = new WorkerPool(options, SlotSource.fixed(4));
    AtomicInteger concurrent = new AtomicInteger();
    AtomicInteger maxConcurrent = new AtomicInteger();
    Map<Long, AtomicInteger> attemptsById = new ConcurrentHashMap<>();
    Job<Object> failingSlowly = a -> {
      maxConcurrent.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
      attemptsById.computeIfAbsent(a.jobId(), id -> new AtomicInteger()).incrementAndGet();
      try {
        Thread.sleep(5); // the downstream takes its time to fail
        throw new RetryableJobException("downstream unavailable (attempt " + a.number() + ")");
      } finally {
        concurrent.decrementAndGet();
      }
    };
    List<JobHandle<Object>> accepted = new ArrayList<>();
    int overloaded = 0;
    Duration oldestAge = Duration.ZERO;
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    try {
      for (int i = 0; i < 300 && System.nanoTime() < end; i++) {
        SubmitResult<Object> r = pool.submit(failingSlowly, Instant.now().plusSeconds(60));
        if (r instanceof SubmitResult.Accepted<Object> a) {
          accepted.add(a.handle());
        } else if (r instanceof SubmitResult.Overloaded<Object> o) {
          overloaded++;
          // A well-behaved caller waits as told (bounded here), then offers the next job.
          Thread.sleep(Math.min(5, Math.max(1, o.retryAfter().toMillis())));
        }
        Duration age = pool.stats().oldestQueuedAge();
        oldestAge = age.compareTo(oldestAge) > 0 ? age : oldestAge;
      }
      for (JobHandle<Object> h : accepted) {
        JobResult<Object> r = h.result().get(30, TimeUnit.SECONDS);
        assertEquals(JobState.FAILED, r.state(), "job " + h.id());
        assertEquals(3, r.attempts(), "job " + h.id());
        assertEquals(3, attemptsById.get(h.id()).get(), "job " + h.id() + " ran a different number of times");
      }
    } finally {
      pool.shutdown(Instant.now().plusSeconds(10), ShutdownPolicy.CANCEL_QUEUED);
    }
    assertTrue(maxConcurrent.get() <= 4, "concurrency " + maxConcurrent.get() + " > W 4");
    assertTrue(overloaded > 0, "the queue never filled");
    assertTrue(oldestAge.toMillis() >= 5, "oldest queued age stayed at " + oldestAge);
    assertEquals(2L * accepted.size(), pool.stats().retries());
    assertEquals(2 * accepted.size(), delays.size());
    Set<Long> chosen = new HashSet<>();
    for (long[] d : delays) {
      assertTrue(d[0] == 4_000_000L || d[0] == 8_000_000L, "cap " + d[0] + " is not base or 2 * base");
      assertTrue(d[1] >= 0 && d[1] <= d[0], "delay " + d[1] + " outside [0, " + d[0] + "]");
      chosen.add(d[1]);
    }
    assertTrue(chosen.size() > delays.size() / 2, "jitter chose only " + chosen.size() + " distinct delays");
  }

  /**
   * Cancellation storm: 10,000 jobs wait while the pool holds no slot; half are cancelled (from
   * two threads at once) before any runs; then slots arrive and shutdown begins while the rest
   * drain. No cancelled job runs, no job runs twice, every accepted job ends in exactly one
   * terminal state, and the report accounts for every job live at shutdown once.
   */
  @Test
  void cancellationStorm() throws Exception {
    int jobs = 10_000;
    ScriptedSlotSource slots = new ScriptedSlotSource(0, Instant.MAX);
    WorkerPool pool = new WorkerPool(PoolOptions.of(4, jobs), slots);
    Map<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
    Job<Long> work = a -> {
      runs.computeIfAbsent(a.jobId(), id -> new AtomicInteger()).incrementAndGet();
      long x = 0;
      for (int i = 0; i < 2_000; i++) {
        x += i * a.jobId();
      }
      return x;
    };
    List<JobHandle<Long>> handles = new ArrayList<>(jobs);
    for (int i = 0; i < jobs; i++) {
      handles.add(WorkerPoolTest.accepted(pool.submit(work, Instant.now().plusSeconds(120))));
    }
    Set<Long> cancelledBeforeRun = ConcurrentHashMap.newKeySet();
    AtomicBoolean cancelRefused = new AtomicBoolean();
    List<Thread> cancellers = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      int offset = t * 2;
      Thread c = new Thread(() -> {
        for (int i = offset; i < jobs; i += 4) {
          JobHandle<Long> h = handles.get(i);
          if (h.cancel()) {
            cancelledBeforeRun.add(h.id());
          } else {
            cancelRefused.set(true);
          }
        }
      });
      cancellers.add(c);
      c.start();
    }
    for (Thread c : cancellers) {
      c.join(TimeUnit.SECONDS.toMillis(30));
      assertFalse(c.isAlive(), "a canceller did not finish");
    }
    assertFalse(cancelRefused.get(), "a queued job could not be cancelled");
    assertEquals(jobs / 2, cancelledBeforeRun.size());
    assertTrue(runs.isEmpty(), "jobs ran without a slot: " + runs.size());

    slots.setPermits(4);
    WAIT.until("the drain is under way", runs::size, n -> n > 0);
    ShutdownReport report = pool.shutdown(Instant.now().plusMillis(20), ShutdownPolicy.DRAIN);

    Map<JobState, Integer> byState = new EnumMap<>(JobState.class);
    for (JobHandle<Long> h : handles) {
      JobResult<Long> r = h.result().get(30, TimeUnit.SECONDS);
      assertTrue(r.state().isTerminal());
      assertEquals(r.state(), h.state(), "job " + h.id() + " state moved after its result");
      byState.merge(r.state(), 1, Integer::sum);
      if (cancelledBeforeRun.contains(h.id())) {
        assertEquals(JobState.CANCELLED, r.state());
        assertFalse(runs.containsKey(h.id()), "cancelled job " + h.id() + " ran");
      }
      if (r.state() == JobState.SUCCEEDED) {
        assertEquals(1, runs.get(h.id()).get(), "job " + h.id() + " ran more than once");
      }
      if (r.state() == JobState.CANCELLED) {
        assertFalse(runs.containsKey(h.id()), "job " + h.id() + " ran and was reported cancelled");
      }
    }
    assertEquals(jobs, byState.values().stream().mapToInt(Integer::intValue).sum());
    assertEquals(runs.size(), byState.getOrDefault(JobState.SUCCEEDED, 0));
    PoolStats stats = pool.stats();
    assertEquals(jobs, stats.accepted());
    assertEquals(jobs, stats.succeeded() + stats.failed() + stats.cancelled());

    Set<Long> reported = new HashSet<>();
    reported.addAll(report.finished());
    reported.addAll(report.cancelled());
    reported.addAll(report.abandoned());
    assertEquals(report.finished().size() + report.cancelled().size() + report.abandoned().size(), reported.size(),
        "a job appears in two lists of the report");
    assertTrue(reported.size() <= jobs / 2 && reported.size() > 0, "report covers " + reported.size());
    for (long id : reported) {
      assertFalse(cancelledBeforeRun.contains(id), "job " + id + " ended before shutdown yet is in the report");
    }
    WAIT.until("workers exit", pool::isTerminated, t -> t);
  }

  /**
   * Shrinking the slot count while the pool is busy: once the jobs beyond the new share have
   * ended, concurrency sampled inside every job and by the pool never exceeds the new cap.
   */
  @Test
  void shrinkingSlotsWhileBusy() throws Exception {
    ScriptedSlotSource slots = new ScriptedSlotSource(8, Instant.MAX);
    WorkerPool pool = new WorkerPool(PoolOptions.of(8, 32), slots);
    AtomicInteger concurrent = new AtomicInteger();
    AtomicInteger maxBefore = new AtomicInteger();
    AtomicInteger maxAfterSettle = new AtomicInteger();
    AtomicBoolean settled = new AtomicBoolean();
    AtomicBoolean producing = new AtomicBoolean(true);
    AtomicLong submitted = new AtomicLong();
    Job<Object> job = a -> {
      int c = concurrent.incrementAndGet();
      try {
        (settled.get() ? maxAfterSettle : maxBefore).accumulateAndGet(c, Math::max);
        Thread.sleep(2);
        return c;
      } finally {
        concurrent.decrementAndGet();
      }
    };
    Thread producer = new Thread(() -> {
      // Bounded: at most 3,000 jobs, and it stops when the test says so.
      while (producing.get() && submitted.get() < 3_000) {
        SubmitResult<Object> r = pool.submit(job, Instant.now().plusSeconds(60), Duration.ofMillis(50));
        if (r instanceof SubmitResult.Accepted<Object>) {
          submitted.incrementAndGet();
        }
      }
    });
    producer.start();
    try {
      WAIT.until("all 8 workers busy", () -> pool.stats().running(), n -> n == 8);
      slots.setPermits(3);
      WAIT.until("the jobs beyond the new share end", () -> pool.stats().running(), n -> n <= 3);
      settled.set(true);
      int maxSampled = 0;
      for (int i = 0; i < 300; i++) {
        maxSampled = Math.max(maxSampled, pool.stats().running());
        Thread.onSpinWait();
      }
      long before = pool.stats().succeeded();
      WAIT.until("work continues under the new cap", () -> pool.stats().succeeded(), n -> n >= before + 50);
      assertTrue(maxSampled <= 3, "pool sampled " + maxSampled + " running after shrinking to 3");
      assertTrue(maxAfterSettle.get() <= 3, "a job saw " + maxAfterSettle.get() + " concurrent after shrinking to 3");
      assertTrue(maxAfterSettle.get() >= 1, "no job ran after the shrink");
      assertTrue(maxBefore.get() <= 8, "a job saw " + maxBefore.get() + " concurrent under 8 slots");
    } finally {
      producing.set(false);
      producer.join(TimeUnit.SECONDS.toMillis(30));
      pool.shutdown(Instant.now().plusSeconds(10), ShutdownPolicy.CANCEL_QUEUED);
    }
    assertFalse(producer.isAlive());
  }
}
