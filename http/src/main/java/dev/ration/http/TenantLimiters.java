package dev.ration.http;

import dev.ration.client.RationClient;
import dev.ration.client.limiter.LimiterOptions;
import dev.ration.client.limiter.RateLimiter;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * One {@link RateLimiter} per tenant on one resource, created on a tenant's first request and
 * kept until {@link #close()}. Bounded: past {@code maxTenants} a new tenant is refused with an
 * {@link IllegalStateException} rather than growing without end (each limiter holds a lease).
 */
public final class TenantLimiters implements Function<String, RateLimiter>, AutoCloseable {
  private final RationClient client;
  private final String resource;
  private final String holder;
  private final LimiterOptions options;
  private final int maxTenants;
  private final ConcurrentHashMap<String, RateLimiter> limiters = new ConcurrentHashMap<>();

  /**
   * Limiters on {@code resource} held by {@code holder} (this instance's name, e.g. host or
   * region), at most {@code maxTenants} of them.
   */
  public TenantLimiters(RationClient client, String resource, String holder, LimiterOptions options,
      int maxTenants) {
    if (client == null || options == null || resource == null || resource.isEmpty()
        || holder == null || holder.isEmpty()) {
      throw new IllegalArgumentException("client, options, a resource and a holder are required");
    }
    if (maxTenants < 1) {
      throw new IllegalArgumentException("maxTenants " + maxTenants + " must be >= 1");
    }
    this.client = client;
    this.resource = resource;
    this.holder = holder;
    this.options = options;
    this.maxTenants = maxTenants;
  }

  /** The limiter of {@code tenant}, created on first use. */
  @Override
  public RateLimiter apply(String tenant) {
    RateLimiter existing = limiters.get(tenant);
    if (existing != null) {
      return existing;
    }
    synchronized (this) {
      if (!limiters.containsKey(tenant) && limiters.size() >= maxTenants) {
        throw new IllegalStateException("tenant '" + tenant + "' refused: already " + limiters.size()
            + " tenants on " + resource + " (maxTenants " + maxTenants + ")");
      }
      return limiters.computeIfAbsent(tenant, t -> client.rateLimiter(t, resource, holder, options));
    }
  }

  /** The resource the limiters are on. */
  public String resource() {
    return resource;
  }

  /** Closes every limiter (returning their leases). */
  @Override
  public void close() {
    limiters.values().forEach(RateLimiter::close);
    limiters.clear();
  }
}
