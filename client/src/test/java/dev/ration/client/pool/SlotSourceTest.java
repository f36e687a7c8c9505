package dev.ration.client.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.testkit.Waits;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The pool's concurrency follows its slot source: never more than min(W, permits), no new start
 * beyond a shrunk share, nothing started and running tokens cancelled as the lease ends, and
 * jobs still running at its end reported as overruns. Driven by a scripted source; the lease
 * tests move a manual clock.
 */
class SlotSourceTest {
  static final Waits WAIT = Waits.upTo(Duration.ofSeconds(20)).every(Duration.ofMillis(5));
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  /** Concurrency is min(W, permits) as permits move up and down; a shrink starts nothing new. */
  @Test
  void concurrencyIsTheSmallerOfWorkersAndPermits() throws Exception {
    ScriptedSlotSource slots = new ScriptedSlotSource(2, Instant.MAX);
    WorkerPool pool = new WorkerPool(PoolOptions.of(4, 20), slots);
    Semaphore finish = new Semaphore(0);
    AtomicInteger now = new AtomicInteger();
    AtomicInteger max = new AtomicInteger();
    List<JobHandle<Object>> handles = new ArrayList<>();
    try {
      for (int i = 0; i < 12; i++) {
        handles.add(WorkerPoolTest.accepted(pool.submit(a -> {
          max.accumulateAndGet(now.incrementAndGet(), Math::max);
          try {
            finish.acquire();
          } finally {
            now.decrementAndGet();
          }
          return "ok";
        }, Instant.now().plusSeconds(60))));
      }
      WAIT.until("2 run under 2 permits", () -> pool.stats().running(), n -> n == 2);
      assertEquals(10, pool.stats().queued());
      assertEquals(2, max.get());

      slots.setPermits(3);
      WAIT.until("3 run under 3 permits", () -> pool.stats().running(), n -> n == 3);
      slots.setPermits(100);
      WAIT.until("4 run: W caps 100 permits", () -> pool.stats().running(), n -> n == 4);
      assertEquals(4, pool.stats().slotsHeld());
      WAIT.until("the source hears the demand", () -> slots.lastUsage.get()[0] + "/" + slots.lastUsage.get()[1],
          u -> u.equals("4/8"));

      // Shrink to 1 while 4 run: ending one of them must not start another.
      slots.setPermits(1);
      finish.release(1);
      WAIT.until("one ends", () -> pool.stats().succeeded(), n -> n == 1);
      assertEquals(3, pool.stats().running());
      assertEquals(8, pool.stats().queued(), "a job started beyond the shrunk share");
      finish.release(3);
      WAIT.until("the over-share jobs end and one runs", () -> pool.stats().succeeded(), n -> n == 4);
      WAIT.until("one runs under 1 permit", () -> pool.stats().running(), n -> n == 1);
      assertEquals(7, pool.stats().queued());
      assertEquals(4, max.get());

      // No permits (lease lost): nothing starts.
      slots.setPermits(0);
      finish.release(1);
      WAIT.until("the running job ends", () -> pool.stats().running(), n -> n == 0);
      assertEquals(7, pool.stats().queued());
    } finally {
      finish.release(100);
      slots.setPermits(4);
      pool.shutdown(Instant.now().plusSeconds(10), ShutdownPolicy.DRAIN);
    }
    for (JobHandle<Object> h : handles) {
      assertEquals(JobState.SUCCEEDED, h.result().get(10, TimeUnit.SECONDS).state());
    }
  }

  /**
   * Within cancelLead of the lease end the pool starts nothing and cancels running tokens; a
   * job that honours its token ends CANCELLED, one that ignores it and runs past the lease end is
   * an overrun (counted, listed, and flagged in its result). A renewed lease lets work resume.
   */
  @Test
  void anEndingLeaseStopsStartsCancelsTokensAndReportsOverruns() throws Exception {
    ManualClock clock = new ManualClock(T0);
    ScriptedSlotSource slots = new ScriptedSlotSource(2, T0.plusSeconds(10));
    WorkerPool pool = new WorkerPool(PoolOptions.of(2, 10).withClock(clock).withCancelLead(Duration.ofSeconds(1)), slots);
    CountDownLatch ignoring = new CountDownLatch(1);
    try {
      JobHandle<Object> honours = WorkerPoolTest.accepted(pool.submit(a -> {
        CountDownLatch stop = new CountDownLatch(1);
        try (CancellationToken.Registration r = a.token().onCancel(stop::countDown)) {
          stop.await();
        }
        a.token().throwIfCancelled();
        return "not cancelled";
      }, T0.plusSeconds(3600)));
      JobHandle<Object> ignores = WorkerPoolTest.accepted(pool.submit(a -> {
        ignoring.await();
        return "finished late";
      }, T0.plusSeconds(3600)));
      WAIT.until("both run", () -> pool.stats().running(), n -> n == 2);
      JobHandle<Object> waiting = WorkerPoolTest.accepted(pool.submit(a -> "after renewal", T0.plusSeconds(3600)));

      clock.advance(Duration.ofMillis(9_500)); // inside the 1 s lead before the lease end at 10 s
      JobResult<Object> cancelled = honours.result().get(10, TimeUnit.SECONDS);
      assertEquals(JobState.CANCELLED, cancelled.state());
      assertTrue(cancelled.failure().orElseThrow().getMessage().contains("LEASE_ENDING"),
          cancelled.failure().orElseThrow().getMessage());
      assertEquals(1, pool.stats().running());
      assertEquals(JobState.QUEUED, waiting.state(), "a job started although the lease is ending");
      assertEquals(0, pool.stats().overruns());

      clock.advance(Duration.ofSeconds(1)); // 10.5 s: past the lease end, the stubborn job still runs
      WAIT.until("the overrun is counted", () -> pool.stats().overruns(), n -> n == 1);
      assertEquals(List.of(ignores.id()), pool.overrunJobIds());
      assertEquals(JobState.QUEUED, waiting.state());

      slots.setValidUntil(clock.instant().plusSeconds(10)); // renewed
      assertEquals("after renewal", waiting.result().get(10, TimeUnit.SECONDS).value().orElseThrow());
      ignoring.countDown();
      JobResult<Object> late = ignores.result().get(10, TimeUnit.SECONDS);
      assertEquals(JobState.SUCCEEDED, late.state());
      assertTrue(late.overrun(), "the late job's result says it overran");
      assertEquals(1, pool.stats().overruns());
    } finally {
      ignoring.countDown();
      pool.shutdown(clock.instant().plusSeconds(1), ShutdownPolicy.CANCEL_QUEUED);
    }
  }

  /** A fixed source permits its count forever and needs no clock or cluster. */
  @Test
  void fixedSourceNeverExpires() {
    SlotSource fixed = SlotSource.fixed(3);
    assertEquals(3, fixed.permits());
    assertEquals(Instant.MAX, fixed.validUntil());
    assertInstanceOf(SlotSource.class, fixed);
  }
}
