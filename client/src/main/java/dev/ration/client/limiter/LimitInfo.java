package dev.ration.client.limiter;

import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import java.time.Duration;
import java.util.Objects;

/**
 * A global limit as configured, with its ledger as of the read: what the live leases are
 * granted and counted, the returned-token pool, and the invariant ceilings.
 *
 * <p>The ceilings equal the rate and burst except while a decrease of the limit is being
 * absorbed. Counted minus granted is the capacity held by unacknowledged shrinks. The demand
 * figures are the sum of what the holders of leases not yet expired last reported (saturating):
 * what the demand-driven policies split the rate and burst over.
 *
 * @param tenant the tenant
 * @param resource the resource
 * @param ratePerSecond the sustained rate R shared by all holders, tokens per second
 * @param burst the burst B shared by all holders, tokens
 * @param mode what a holder may do once its lease expires unrenewed
 * @param leaseDuration how long a lease lasts unless renewed
 * @param grace how long the ledger keeps counting an expired lease
 * @param emergency the emergency budget E per disconnection (best-effort mode), tokens
 * @param policy how the capacity is split among holders
 * @param version the configuration's version (the compare-and-set guard of the next change)
 * @param countedRate the rate counted over live leases
 * @param countedBurst the burst counted over live leases
 * @param grantedRate the rate granted to live leases
 * @param grantedBurst the burst granted to live leases
 * @param pool tokens returned by holders and not yet handed out again
 * @param leases the number of live leases
 * @param pendingShrinks the number of unacknowledged shrinks
 * @param rateCeiling the most the counted rate may reach
 * @param burstCeiling the most the counted burst may reach
 * @param emergencyReported emergency tokens holders reported spending
 * @param demandRate the rate demanded by the holders
 * @param demandBurst the burst demanded by the holders
 */
public record LimitInfo(
    String tenant,
    String resource,
    long ratePerSecond,
    long burst,
    Mode mode,
    Duration leaseDuration,
    Duration grace,
    long emergency,
    Policy policy,
    long version,
    long countedRate,
    long countedBurst,
    long grantedRate,
    long grantedBurst,
    long pool,
    int leases,
    int pendingShrinks,
    long rateCeiling,
    long burstCeiling,
    long emergencyReported,
    long demandRate,
    long demandBurst) {
  /**
   * A limit view, validated.
   *
   * @param tenant the tenant
   * @param resource the resource
   * @param ratePerSecond the rate
   * @param burst the burst
   * @param mode the mode
   * @param leaseDuration the lease duration
   * @param grace the grace
   * @param emergency the emergency budget
   * @param policy the policy
   * @param version the configuration's version
   * @param countedRate the counted rate
   * @param countedBurst the counted burst
   * @param grantedRate the granted rate
   * @param grantedBurst the granted burst
   * @param pool the returned-token pool
   * @param leases the live leases
   * @param pendingShrinks the unacknowledged shrinks
   * @param rateCeiling the rate ceiling
   * @param burstCeiling the burst ceiling
   * @param emergencyReported the emergency tokens reported
   * @param demandRate the demanded rate
   * @param demandBurst the demanded burst
   * @throws NullPointerException if a name, the mode, the policy or a duration is missing
   */
  public LimitInfo {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(resource, "resource");
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(leaseDuration, "leaseDuration");
    Objects.requireNonNull(grace, "grace");
    Objects.requireNonNull(policy, "policy");
  }
}
