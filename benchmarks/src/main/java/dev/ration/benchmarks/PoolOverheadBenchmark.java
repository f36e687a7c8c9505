package dev.ration.benchmarks;

import dev.ration.client.pool.Job;
import dev.ration.client.pool.JobHandle;
import dev.ration.client.pool.PoolOptions;
import dev.ration.client.pool.ShutdownPolicy;
import dev.ration.client.pool.SlotSource;
import dev.ration.client.pool.SubmitResult;
import dev.ration.client.pool.WorkerPool;
import java.time.Instant;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Per-job overhead of {@link WorkerPool} beside a {@link ThreadPoolExecutor} of the same shape,
 * same run: 4 workers, a bounded queue, a trivial job (returns its attempt number / a constant).
 * Each invocation submits {@link #BATCH} jobs from the benchmark thread and waits for all of
 * their results, so a figure is the cost of one job's submit, queue hand-off, run and result,
 * per job (ns/op; throughput is 10^9 / that). The pool additionally does a state machine per
 * job, a deadline check, a live-job map, result retention and a token; the executor does none
 * of those.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PoolOverheadBenchmark {
  static final int BATCH = 1_000;
  static final int WORKERS = 4;

  WorkerPool pool;
  ThreadPoolExecutor executor;
  final Job<Integer> job = attempt -> attempt.number();

  @Setup(Level.Trial)
  public void start() {
    pool = new WorkerPool(PoolOptions.of(WORKERS, BATCH), SlotSource.fixed(WORKERS));
    executor = new ThreadPoolExecutor(WORKERS, WORKERS, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(BATCH));
    executor.prestartAllCoreThreads();
  }

  @TearDown(Level.Trial)
  public void stop() throws InterruptedException {
    pool.shutdown(Instant.now().plusSeconds(10), ShutdownPolicy.CANCEL_QUEUED);
    executor.shutdownNow();
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long workerPool() throws Exception {
    @SuppressWarnings("unchecked")
    JobHandle<Integer>[] handles = new JobHandle[BATCH];
    Instant deadline = Instant.now().plusSeconds(60);
    for (int i = 0; i < BATCH; i++) {
      SubmitResult<Integer> r = pool.submit(job, deadline);
      if (!(r instanceof SubmitResult.Accepted<Integer> a)) {
        throw new IllegalStateException("job " + i + " of the batch not accepted: " + r);
      }
      handles[i] = a.handle();
    }
    long sum = 0;
    for (JobHandle<Integer> h : handles) {
      sum += h.result().get().value().orElseThrow();
    }
    return sum;
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long threadPoolExecutor() throws Exception {
    @SuppressWarnings("unchecked")
    Future<Integer>[] futures = new Future[BATCH];
    for (int i = 0; i < BATCH; i++) {
      futures[i] = executor.submit(() -> 1);
    }
    long sum = 0;
    for (Future<Integer> f : futures) {
      sum += f.get();
    }
    return sum;
  }
}
