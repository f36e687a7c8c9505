package dev.ration.client.metrics;

import dev.ration.client.quota.QuotaLimiter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Micrometer meters of one {@link QuotaLimiter}, tagged {@code holder} and any extra tags given:
 *
 * <ul>
 *   <li>{@code ration.client.quota.limiter.admitted} (counter): the amount admitted;
 *   <li>{@code ration.client.quota.limiter.overdrawn} (counter): the part of it admitted from
 *       soft budgets' overdrafts while cut off from the coordinator;
 *   <li>{@code ration.client.quota.limiter.refused} (counter, tag {@code reason}: NO_BUDGET,
 *       EXHAUSTED, EXPIRED, REFUSED): checks refused, by why;
 *   <li>{@code ration.client.quota.limiter.budgets} (gauge): budgets held now;
 *   <li>{@code ration.client.quota.limiter.renewal.rounds} (counter): renewal requests sent.
 * </ul>
 *
 * <p>The meters read the limiter's own counters when scraped: nothing is added to a check.
 * Its calls (grants, renewals, returns) are the quota client's, measured by {@link QuotaMetrics}.
 */
public final class QuotaLimiterMetrics implements MeterBinder {
  private final QuotaLimiter limiter;
  private final Tags tags;

  /**
   * Meters of {@code limiter}.
   *
   * @param limiter the limiter
   */
  public QuotaLimiterMetrics(QuotaLimiter limiter) {
    this(limiter, Tags.empty());
  }

  /**
   * As {@link #QuotaLimiterMetrics(QuotaLimiter)}, with {@code extraTags} on every meter.
   *
   * @param limiter the limiter
   * @param extraTags tags added to every meter
   */
  public QuotaLimiterMetrics(QuotaLimiter limiter, Iterable<Tag> extraTags) {
    if (limiter == null || extraTags == null) {
      throw new IllegalArgumentException("limiter and extraTags are required");
    }
    this.limiter = limiter;
    this.tags = Tags.of(extraTags).and("holder", limiter.holder());
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    FunctionCounter.builder("ration.client.quota.limiter.admitted", limiter,
            QuotaLimiter::admittedTotal)
        .tags(tags).description("Amount admitted from budgets").register(registry);
    FunctionCounter.builder("ration.client.quota.limiter.overdrawn", limiter,
            QuotaLimiter::overdrawnTotal)
        .tags(tags).description("Amount admitted from soft budgets' overdrafts while cut off")
        .register(registry);
    for (QuotaLimiter.Reason reason : QuotaLimiter.Reason.values()) {
      if (reason == QuotaLimiter.Reason.ADMITTED) {
        continue;
      }
      FunctionCounter.builder("ration.client.quota.limiter.refused", limiter,
              l -> l.refusedTotal(reason))
          .tags(tags).tag("reason", reason.name())
          .description("Quota checks refused, by reason").register(registry);
    }
    Gauge.builder("ration.client.quota.limiter.budgets", limiter, QuotaLimiter::budgetsHeld)
        .tags(tags).description("Budgets held now").register(registry);
    FunctionCounter.builder("ration.client.quota.limiter.renewal.rounds", limiter,
            QuotaLimiter::renewalRounds)
        .tags(tags).description("Renewal requests sent (each renews every held budget)")
        .register(registry);
  }
}
