package dev.ration.client.metrics;

import dev.ration.client.limiter.Decision;
import dev.ration.client.limiter.LeaseListener;
import dev.ration.client.limiter.LeaseState;
import dev.ration.client.limiter.RateLimiter;
import dev.ration.wire.Outcome;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;

/**
 * Micrometer meters of one {@link RateLimiter}, all tagged {@code tenant}, {@code resource} and
 * {@code holder} (plus any extra tags given):
 *
 * <ul>
 *   <li>{@code ration.limiter.decisions} (counter, tags {@code reason}, {@code admitted}): every
 *       {@code tryAcquire}/{@code decide}, by {@link Decision.Reason};
 *   <li>{@code ration.limiter.admitted.permits} (counter): permits admitted;
 *   <li>{@code ration.limiter.lease.state} (gauge, tag {@code state}): 1 for the current
 *       {@link LeaseState}, 0 for the others;
 *   <li>{@code ration.limiter.renew.latency} (timer, tag {@code outcome}): from a renewal's
 *       first send to its answer;
 *   <li>{@code ration.limiter.emergency.spent} (counter): emergency tokens spent; {@code
 *       ration.limiter.emergency.unreported} (gauge): of those, not yet reported to the ledger.
 * </ul>
 *
 * <p>Micrometer is an optional dependency of the client: only this package needs it. Counters
 * and gauges read the limiter when scraped; the timer is fed by a {@link LeaseListener} the
 * binder registers.
 */
public final class RateLimiterMetrics implements MeterBinder {
  private final RateLimiter limiter;
  private final Tags tags;

  /**
   * Meters of {@code limiter} with its tenant, resource and holder as tags.
   *
   * @param limiter the limiter
   */
  public RateLimiterMetrics(RateLimiter limiter) {
    this(limiter, Tags.empty());
  }

  /**
   * As {@link #RateLimiterMetrics(RateLimiter)}, with {@code extraTags} on every meter.
   *
   * @param limiter the limiter
   * @param extraTags tags added to every meter
   */
  public RateLimiterMetrics(RateLimiter limiter, Iterable<Tag> extraTags) {
    if (limiter == null || extraTags == null) {
      throw new IllegalArgumentException("limiter and extraTags are required");
    }
    this.limiter = limiter;
    this.tags = Tags.of("tenant", limiter.tenant(), "resource", limiter.resource(),
        "holder", limiter.holder()).and(extraTags);
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    for (Decision.Reason reason : Decision.Reason.values()) {
      boolean admitted = reason == Decision.Reason.ADMITTED || reason == Decision.Reason.ADMITTED_EMERGENCY;
      FunctionCounter.builder("ration.limiter.decisions", limiter, l -> l.decisions(reason))
          .tags(tags).tag("reason", reason.name()).tag("admitted", Boolean.toString(admitted))
          .description("Admission decisions of the limiter, by reason")
          .register(registry);
    }
    FunctionCounter.builder("ration.limiter.admitted.permits", limiter, RateLimiter::admittedTotal)
        .tags(tags).description("Permits admitted (emergency included)").register(registry);
    for (LeaseState state : LeaseState.values()) {
      Gauge.builder("ration.limiter.lease.state", limiter, l -> l.state() == state ? 1 : 0)
          .tags(tags).tag("state", state.name())
          .description("1 for the limiter's current lease state, 0 for the others")
          .register(registry);
    }
    FunctionCounter.builder("ration.limiter.lease.suspensions", limiter, RateLimiter::suspensionsTotal)
        .tags(tags).description("Local expiries with the renewal unanswered: admission suspended, balance kept")
        .register(registry);
    FunctionCounter.builder("ration.limiter.lease.resumptions", limiter, RateLimiter::resumptionsTotal)
        .tags(tags).description("Suspensions a late renewal ended: the lease resumed with its balance")
        .register(registry);
    FunctionCounter.builder("ration.limiter.emergency.spent", limiter, RateLimiter::emergencySpentTotal)
        .tags(tags).description("Emergency tokens spent while disconnected (best-effort mode)")
        .register(registry);
    Gauge.builder("ration.limiter.emergency.unreported", limiter, RateLimiter::emergencyUnreported)
        .tags(tags).description("Emergency tokens spent and not yet reported to the ledger")
        .register(registry);
    limiter.addListener(new LeaseListener() {
      @Override
      public void onLeaseStateChanged(RateLimiter l, LeaseState previous, LeaseState current) {
        // The state gauge reads the limiter when scraped.
      }

      @Override
      public void onRenewAnswered(RateLimiter l, Outcome outcome, Duration latency) {
        Timer.builder("ration.limiter.renew.latency").tags(tags).tag("outcome", outcome.name())
            .description("From a renewal's first send to its answer")
            .register(registry).record(latency);
      }
    });
  }
}
