package dev.ration.server.endpoint;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-tenant fairness of admission: each tenant (or client session, for requests that name no
 * tenant; {@link Fairness} says which) may have at most {@code maxInFlightPerTenant}
 * ({@code endpoint.max-in-flight-per-tenant}) requests in flight across all connections of this
 * node. It is local admission, not replicated state, so nodes may differ. A hot tenant past its
 * share gets OVERLOADED at once (never a wait), so it can fill at most its share of the
 * group-commit queue and cannot starve other tenants of the coordinator. Returns, completions,
 * cancellations and acknowledgements are never gated: they free capacity.
 *
 * <p>Thread-safe: connections on different event loops acquire and release concurrently. Only
 * tenants with work in flight have an entry, so memory is bounded by requests in flight.
 * Invariant: a tenant's count is the number of its admitted, unfinished gated requests, ≥ 0.
 */
public final class TenantShares {
  private final int maxInFlightPerTenant;
  private final ConcurrentHashMap<String, Integer> inFlight = new ConcurrentHashMap<>();

  public TenantShares(int maxInFlightPerTenant) {
    if (maxInFlightPerTenant < 1) {
      throw new IllegalArgumentException("maxInFlightPerTenant " + maxInFlightPerTenant + " < 1");
    }
    this.maxInFlightPerTenant = maxInFlightPerTenant;
  }

  public int maxInFlightPerTenant() {
    return maxInFlightPerTenant;
  }

  /** Takes one place of {@code tenant}'s share; false (nothing taken) when it is full. */
  public boolean tryAcquire(String tenant) {
    boolean[] taken = {false};
    inFlight.compute(tenant, (t, n) -> {
      int count = n == null ? 0 : n;
      if (count >= maxInFlightPerTenant) {
        return n;
      }
      taken[0] = true;
      return count + 1;
    });
    return taken[0];
  }

  public void release(String tenant) {
    inFlight.compute(tenant, (t, n) -> {
      if (n == null || n < 1) {
        throw new IllegalStateException("tenant " + tenant + " released with " + n + " in flight");
      }
      return n == 1 ? null : n - 1;
    });
  }

  public int inFlight(String tenant) {
    return inFlight.getOrDefault(tenant, 0);
  }
}
