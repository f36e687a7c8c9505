package dev.ration.client;

import dev.ration.wire.lease.Limit;
import dev.ration.protocol.Names;
import dev.ration.protocol.Request;
import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import java.time.Duration;

/**
 * A limit as an operator sets it. {@code expectedVersion} is the compare-and-set guard: 0
 * creates a new limit, otherwise the version being replaced.
 */
public record LimitSpec(
    String tenant,
    String resource,
    long ratePerSecond,
    long burst,
    Mode mode,
    Duration leaseDuration,
    Duration grace,
    long emergency,
    Policy policy,
    long expectedVersion) {

  /**
   * A limit, validated.
   *
   * @param tenant the tenant
   * @param resource the resource
   * @param ratePerSecond the sustained rate R, tokens per second
   * @param burst the burst B, tokens
   * @param mode what a holder may do once its lease expires unrenewed
   * @param leaseDuration how long a lease lasts unless renewed
   * @param grace how long the ledger keeps counting an expired lease
   * @param emergency the emergency budget E per disconnection (best-effort mode)
   * @param policy how the capacity is split among holders
   * @param expectedVersion the version being replaced; 0 creates a new limit
   * @throws IllegalArgumentException on an invalid name or a missing mode, policy or duration
   */
  public LimitSpec {
    Names.requireValid("tenant", tenant);
    Names.requireValid("resource", resource);
    if (mode == null || policy == null || leaseDuration == null || grace == null) {
      throw new IllegalArgumentException(
          "mode " + mode + ", policy " + policy + ", leaseDuration " + leaseDuration + ", grace "
              + grace + " must be set");
    }
  }

  Request.SetLimit toRequest() {
    return new Request.SetLimit(new Limit(
        tenant,
        resource,
        ratePerSecond,
        burst,
        mode,
        leaseDuration.toMillis(),
        grace.toMillis(),
        emergency,
        policy,
        expectedVersion));
  }

  /**
   * A builder for the limit on (tenant, resource), with the defaults below.
   *
   * @param tenant the tenant
   * @param resource the resource
   * @return a builder
   */
  public static Builder builder(String tenant, String resource) {
    return new Builder(tenant, resource);
  }

  /** Defaults: HARD, 10 s leases, 2 s grace, no emergency budget, free-capacity, version 0. */
  public static final class Builder {
    private final String tenant;
    private final String resource;
    private long ratePerSecond;
    private long burst;
    private Mode mode = Mode.HARD;
    private Duration leaseDuration = Duration.ofSeconds(10);
    private Duration grace = Duration.ofSeconds(2);
    private long emergency;
    private Policy policy = Policy.FREE_CAPACITY;
    private long expectedVersion;

    private Builder(String tenant, String resource) {
      this.tenant = tenant;
      this.resource = resource;
    }

    /**
     * The sustained rate R shared by all holders.
     *
     * @param v tokens per second
     * @return this builder
     */
    public Builder ratePerSecond(long v) {
      ratePerSecond = v;
      return this;
    }

    /**
     * The burst B shared by all holders.
     *
     * @param v tokens
     * @return this builder
     */
    public Builder burst(long v) {
      burst = v;
      return this;
    }

    /**
     * What a holder may do once its lease expires unrenewed.
     *
     * @param v hard or best-effort
     * @return this builder
     */
    public Builder mode(Mode v) {
      mode = v;
      return this;
    }

    /**
     * How long a lease lasts unless renewed.
     *
     * @param v the lease duration
     * @return this builder
     */
    public Builder leaseDuration(Duration v) {
      leaseDuration = v;
      return this;
    }

    /**
     * How long the ledger keeps counting an expired lease.
     *
     * @param v the grace
     * @return this builder
     */
    public Builder grace(Duration v) {
      grace = v;
      return this;
    }

    /**
     * The emergency budget E per disconnection (best-effort mode).
     *
     * @param v tokens
     * @return this builder
     */
    public Builder emergency(long v) {
      emergency = v;
      return this;
    }

    /**
     * How the capacity is split among holders.
     *
     * @param v the policy
     * @return this builder
     */
    public Builder policy(Policy v) {
      policy = v;
      return this;
    }

    /**
     * The version being replaced; 0 creates a new limit.
     *
     * @param v the version
     * @return this builder
     */
    public Builder expectedVersion(long v) {
      expectedVersion = v;
      return this;
    }

    /**
     * The limit.
     *
     * @return the limit spec
     */
    public LimitSpec build() {
      return new LimitSpec(
          tenant, resource, ratePerSecond, burst, mode, leaseDuration, grace, emergency,
          policy, expectedVersion);
    }
  }
}
