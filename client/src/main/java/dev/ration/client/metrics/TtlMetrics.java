package dev.ration.client.metrics;

import dev.ration.client.ttl.TtlEntries;
import dev.ration.client.ttl.TtlListener;
import dev.ration.client.ttl.TtlOperation;
import dev.ration.wire.Outcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Micrometer meters of the TTL entries and locks of one client ({@code client.ttl()}), with any
 * extra tags given:
 *
 * <ul>
 *   <li>{@code ration.client.ttl.calls} (timer, tags {@code operation}, {@code outcome}): every
 *       call by {@link TtlOperation} and domain outcome ({@code SUCCESS}, {@code
 *       VERSION_MISMATCH}, ...; {@code FAILED} when no answer came), with its latency;
 *   <li>{@code ration.client.ttl.locks.acquired} and {@code ration.client.ttl.locks.lost}
 *       (counters): locks taken, and refreshes or releases that found their lock gone (lapsed,
 *       or held by someone else);
 *   <li>{@code ration.client.ttl.locks.fencing.token} (gauge): the highest fencing token taken.
 * </ul>
 *
 * <p>Micrometer is an optional dependency of the client: only this package needs it.
 */
public final class TtlMetrics implements MeterBinder {
  /** The {@code outcome} tag of a call that failed without an answer. */
  public static final String FAILED = "FAILED";

  private final TtlEntries entries;
  private final Tags tags;

  /**
   * Meters of {@code entries}.
   *
   * @param entries the TTL entries of a client
   */
  public TtlMetrics(TtlEntries entries) {
    this(entries, Tags.empty());
  }

  /**
   * As {@link #TtlMetrics(TtlEntries)}, with {@code extraTags} on every meter.
   *
   * @param entries the TTL entries of a client
   * @param extraTags tags added to every meter
   */
  public TtlMetrics(TtlEntries entries, Iterable<Tag> extraTags) {
    if (entries == null || extraTags == null) {
      throw new IllegalArgumentException("entries and extraTags are required");
    }
    this.entries = entries;
    this.tags = Tags.of(extraTags);
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Counter acquired = Counter.builder("ration.client.ttl.locks.acquired").tags(tags)
        .description("Locks taken").register(registry);
    Counter lost = Counter.builder("ration.client.ttl.locks.lost").tags(tags)
        .description("Lock refreshes or releases that found the lock lapsed or taken by another")
        .register(registry);
    AtomicLong highestToken = new AtomicLong();
    Gauge.builder("ration.client.ttl.locks.fencing.token", highestToken, AtomicLong::get).tags(tags)
        .description("The highest fencing token taken").register(registry);
    entries.addListener(new TtlListener() {
      @Override
      public void onCall(TtlOperation operation, Optional<Outcome> outcome, Duration latency) {
        Timer.builder("ration.client.ttl.calls").tags(tags).tag("operation", operation.name())
            .tag("outcome", outcome.map(Outcome::name).orElse(FAILED))
            .description("TTL calls by operation and outcome, with their latency")
            .register(registry).record(latency);
      }

      @Override
      public void onLockAcquired(String name, long fencingToken) {
        acquired.increment();
        highestToken.accumulateAndGet(fencingToken, Math::max);
      }

      @Override
      public void onLockLost(String name, long fencingToken) {
        lost.increment();
      }
    });
  }
}
