package dev.ration.server.endpoint;

import dev.ration.client.pool.CancellationToken;
import dev.ration.client.pool.Job;
import dev.ration.client.pool.SubmitResult;
import dev.ration.client.pool.WorkerPool;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * Jobs that count themselves in one counter, which is what a shared downstream would see: how
 * many run at once, the most seen, the runs above a cap, and every attempt. Each honours
 * cancellation: it waits on its token, up to 30 ms.
 */
final class CountedJobs {
  final AtomicInteger running = new AtomicInteger();
  final AtomicInteger maxSeen = new AtomicInteger();
  final AtomicInteger cap;
  final AtomicLong violations = new AtomicLong();
  final AtomicLong attempts = new AtomicLong();

  CountedJobs(int cap) {
    this.cap = new AtomicInteger(cap);
  }

  Job<Integer> job() {
    return a -> {
      attempts.incrementAndGet();
      int now = running.incrementAndGet();
      maxSeen.accumulateAndGet(now, Math::max);
      if (now > cap.get()) {
        violations.incrementAndGet();
      }
      // Its work: 30 ms, ended early by a cancel of its token.
      CountDownLatch cancelled = new CountDownLatch(1);
      try (CancellationToken.Registration r = a.token().onCancel(cancelled::countDown)) {
        cancelled.await(30, TimeUnit.MILLISECONDS);
        return now;
      } finally {
        running.decrementAndGet();
      }
    };
  }

  /** Keeps the pools' queues non-empty until {@code end} (bounded by time and count). */
  void feed(List<WorkerPool> pools, Instant end) {
    feed(pools, end, () -> false);
  }

  /**
   * As above, ending early once {@code done} holds. Each submit waits (at most 20 ms) for room in
   * a full queue, which paces the loop.
   */
  void feed(List<WorkerPool> pools, Instant end, BooleanSupplier done) {
    Job<Integer> job = job();
    int submitted = 0;
    while (Instant.now().isBefore(end) && submitted < 200_000 && !done.getAsBoolean()) {
      for (WorkerPool p : pools) {
        if (p.submit(job, Instant.now().plusSeconds(30), Duration.ofMillis(20))
            instanceof SubmitResult.Accepted<Integer>) {
          submitted++;
        }
      }
    }
  }
}
