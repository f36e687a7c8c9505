package dev.ration.client.metrics;

import dev.ration.client.quota.QuotaClient;
import dev.ration.client.quota.QuotaListener;
import dev.ration.client.quota.QuotaOperation;
import dev.ration.client.quota.ReserveResult;
import dev.ration.wire.Outcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.Optional;

/**
 * Micrometer meters of the quota client of one client ({@code client.quotas()}), with any extra
 * tags given:
 *
 * <ul>
 *   <li>{@code ration.client.quota.calls} (timer, tags {@code operation}, {@code outcome}):
 *       every call by {@link QuotaOperation} and domain outcome ({@code SUCCESS}, {@code
 *       LIMIT_EXHAUSTED}, ...; {@code FAILED} when no answer came), with its latency;
 *   <li>{@code ration.client.quota.reservations.refused} (counter, tags {@code reason}, {@code
 *       resource}): reservations the coordinator refused, by outcome and refused resource (the
 *       refusing scope is left out: scopes are per customer and would make a meter each).
 * </ul>
 *
 * <p>Micrometer is an optional dependency of the client: only this package needs it.
 */
public final class QuotaMetrics implements MeterBinder {
  /** The {@code outcome} tag of a call that failed without an answer. */
  public static final String FAILED = "FAILED";

  private final QuotaClient quotas;
  private final Tags tags;

  /**
   * Meters of {@code quotas}.
   *
   * @param quotas the quota client of a client
   */
  public QuotaMetrics(QuotaClient quotas) {
    this(quotas, Tags.empty());
  }

  /**
   * As {@link #QuotaMetrics(QuotaClient)}, with {@code extraTags} on every meter.
   *
   * @param quotas the quota client of a client
   * @param extraTags tags added to every meter
   */
  public QuotaMetrics(QuotaClient quotas, Iterable<Tag> extraTags) {
    if (quotas == null || extraTags == null) {
      throw new IllegalArgumentException("quotas and extraTags are required");
    }
    this.quotas = quotas;
    this.tags = Tags.of(extraTags);
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    quotas.addListener(new QuotaListener() {
      @Override
      public void onCall(QuotaOperation operation, Optional<Outcome> outcome, Duration latency) {
        Timer.builder("ration.client.quota.calls").tags(tags).tag("operation", operation.name())
            .tag("outcome", outcome.map(Outcome::name).orElse(FAILED))
            .description("Quota calls by operation and outcome, with their latency")
            .register(registry).record(latency);
      }

      @Override
      public void onReserveRefused(ReserveResult refusal) {
        Counter.builder("ration.client.quota.reservations.refused").tags(tags)
            .tag("reason", refusal.outcome().name()).tag("resource", refusal.resource())
            .description("Reservations the coordinator refused, by reason and resource")
            .register(registry).increment();
      }
    });
  }
}
