package dev.ration.benchmarks;

import dev.ration.client.limiter.internal.LeasedBucket;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.TimeMeter;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * {@code LeasedBucket.tryAcquire} beside Bucket4j's lock-free local bucket, same run, same
 * shape: 1 thread and 2 threads on one shared bucket.
 *
 * <p>{@code regime=full}: rate 10^9/s, burst 10^9 — the bucket never runs dry, so every call
 * takes the admit path (a CAS). {@code regime=mixed}: rate 1,000,000/s, burst 1,000 — calls
 * faster than 1 µs run it dry, so a large share of calls take the reject path.
 *
 * <p>The leased bucket reads the clock like Bucket4j does (System.nanoTime per call), so both
 * pay for the same clock read.
 *
 * <p>{@code *PrecomputedTime}: the bucket cost without the clock. {@code LeasedBucket} takes
 * time as a parameter, so the benchmark passes a per-thread counter advanced by
 * {@link #STEP_NANOS} per call (a caller that already read the clock, e.g. once per request);
 * Bucket4j gets the same counter through a custom {@code TimeMeter}. With 2 threads each thread
 * has its own counter (they drift apart slightly; the leased bucket then rejects the late
 * thread's calls in the mixed regime rather than admitting more).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class LocalBucketBenchmark {
  @Param({"full", "mixed"})
  public String regime;

  /** Simulated time between two calls of one thread in the precomputed-time variants. */
  static final long STEP_NANOS = 20;

  private LeasedBucket leased;
  private Bucket bucket4j;
  private Bucket bucket4jManual;
  private long setupNanos;

  /** The precomputed clock of one benchmark thread. */
  @State(Scope.Thread)
  public static class ThreadClock {
    long nowNanos;

    @Setup
    public void setup(LocalBucketBenchmark b) {
      nowNanos = b.setupNanos;
    }
  }

  /** Bucket4j's time source for the single-threaded precomputed variant. */
  private final ManualMeter meter = new ManualMeter();

  static final class ManualMeter implements TimeMeter {
    long nowNanos;

    @Override
    public long currentTimeNanos() {
      return nowNanos;
    }

    @Override
    public boolean isWallClockBased() {
      return false;
    }
  }

  @Setup
  public void setup() {
    long rate = regime.equals("full") ? 1_000_000_000L : 1_000_000L;
    long burst = regime.equals("full") ? 1_000_000_000L : 1_000L;
    leased = new LeasedBucket();
    long now = System.nanoTime();
    // A lease valid for an hour; at 10^9 tokens/s refill within one term is bounded at 72 s
    // (2^56 microtokens), more than a trial lasts, and the 10^9-token burst never runs dry.
    leased.install(rate, burst, burst, now + 3_600_000_000_000L, now);
    setupNanos = now;
    meter.nowNanos = now;
    bucket4jManual = Bucket.builder()
        .addLimit(Bandwidth.builder().capacity(burst).refillGreedy(rate, Duration.ofSeconds(1)).initialTokens(burst).build())
        .withCustomTimePrecision(meter)
        .build();
    bucket4j = Bucket.builder()
        .addLimit(Bandwidth.builder().capacity(burst).refillGreedy(rate, Duration.ofSeconds(1)).initialTokens(burst).build())
        .withNanosecondPrecision() // same clock as the leased bucket: System.nanoTime
        .build();
  }

  @Benchmark
  public boolean leasedBucket() {
    return leased.tryAcquire(1, System.nanoTime());
  }

  /** The clock read alone: what both buckets pay per call on this machine. */
  @Benchmark
  public long clockOnly() {
    return System.nanoTime();
  }

  @Benchmark
  public boolean bucket4j() {
    return bucket4j.tryConsume(1);
  }

  @Benchmark
  @Threads(2)
  public boolean leasedBucket2Threads() {
    return leased.tryAcquire(1, System.nanoTime());
  }

  @Benchmark
  @Threads(2)
  public boolean bucket4j2Threads() {
    return bucket4j.tryConsume(1);
  }

  /** The honest bucket cost: time is a parameter, read once per request by the caller. */
  @Benchmark
  public boolean leasedBucketPrecomputedTime(ThreadClock clock) {
    clock.nowNanos += STEP_NANOS;
    return leased.tryAcquire(1, clock.nowNanos);
  }

  @Benchmark
  public boolean bucket4jPrecomputedTime() {
    meter.nowNanos += STEP_NANOS;
    return bucket4jManual.tryConsume(1);
  }

  @Benchmark
  @Threads(2)
  public boolean leasedBucketPrecomputedTime2Threads(ThreadClock clock) {
    clock.nowNanos += STEP_NANOS;
    return leased.tryAcquire(1, clock.nowNanos);
  }
}
