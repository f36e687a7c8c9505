package dev.ration.client.pool;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Publishes a {@link WorkerPool}'s numbers to Micrometer. The only class of the pool that
 * touches Micrometer, which is an optional dependency: a service without Micrometer never loads
 * this class and the pool runs all the same. Every meter reads {@link WorkerPool#stats()} when
 * scraped, so binding costs the pool nothing between scrapes.
 *
 * <p>Meters, all tagged {@code pool=<name>}: gauges {@code ration.pool.queue.depth},
 * {@code ration.pool.queue.backing.off}, {@code ration.pool.queue.oldest.age} (seconds),
 * {@code ration.pool.workers.active}, {@code ration.pool.utilization},
 * {@code ration.pool.slots.held}, {@code ration.pool.slots.used}; counters
 * {@code ration.pool.jobs} tagged {@code outcome=accepted|rejected|overloaded|succeeded|failed|cancelled},
 * {@code ration.pool.retries}, {@code ration.pool.overruns}; function timer
 * {@code ration.pool.run} (every attempt's run time).
 */
public final class WorkerPoolMetrics implements MeterBinder {
  private final WorkerPool pool;
  private final Tags tags;

  /**
   * Meters of {@code pool}, tagged {@code pool=name}.
   *
   * @param pool the pool
   * @param name its name in the tags
   */
  public WorkerPoolMetrics(WorkerPool pool, String name) {
    this.pool = Objects.requireNonNull(pool, "pool");
    this.tags = Tags.of("pool", Objects.requireNonNull(name, "name"));
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    gauge(registry, "ration.pool.queue.depth", "jobs waiting to start", s -> s.queued());
    gauge(registry, "ration.pool.queue.backing.off", "jobs waiting for a retry's backoff", s -> s.backingOff());
    gauge(registry, "ration.pool.queue.oldest.age", "seconds the oldest queued job has waited",
        s -> s.oldestQueuedAge().toNanos() / 1e9);
    gauge(registry, "ration.pool.workers.active", "jobs running now", s -> s.running());
    gauge(registry, "ration.pool.utilization", "running jobs / workers", PoolStats::utilization);
    gauge(registry, "ration.pool.slots.held", "concurrency the slot source permits, at most the workers",
        s -> s.slotsHeld());
    gauge(registry, "ration.pool.slots.used", "slots in use (running jobs)", s -> s.running());
    counter(registry, "accepted", s -> s.accepted());
    counter(registry, "rejected", s -> s.rejected());
    counter(registry, "overloaded", s -> s.overloaded());
    counter(registry, "succeeded", s -> s.succeeded());
    counter(registry, "failed", s -> s.failed());
    counter(registry, "cancelled", s -> s.cancelled());
    FunctionCounter.builder("ration.pool.retries", pool, p -> p.stats().retries())
        .description("attempts scheduled after a retryable failure").tags(tags).register(registry);
    FunctionCounter.builder("ration.pool.overruns", pool, p -> p.stats().overruns())
        .description("jobs still running when the slot lease ended").tags(tags).register(registry);
    FunctionTimer.builder("ration.pool.run", pool, p -> p.stats().attempts(), p -> p.stats().runNanosTotal(),
            TimeUnit.NANOSECONDS)
        .description("run time of each attempt").tags(tags).register(registry);
  }

  private void gauge(MeterRegistry registry, String name, String description, ToDoubleFunction<PoolStats> f) {
    Gauge.builder(name, pool, p -> f.applyAsDouble(p.stats())).description(description).tags(tags)
        .register(registry);
  }

  private void counter(MeterRegistry registry, String outcome, ToDoubleFunction<PoolStats> f) {
    FunctionCounter.builder("ration.pool.jobs", pool, p -> f.applyAsDouble(p.stats()))
        .description("jobs by outcome of submission or end").tags(tags).tag("outcome", outcome)
        .register(registry);
  }
}
