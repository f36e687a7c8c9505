package dev.ration.client;

import dev.ration.wire.lease.Limit;
import dev.ration.client.protocol.Names;
import dev.ration.client.protocol.Request;
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

    public Builder ratePerSecond(long v) {
      ratePerSecond = v;
      return this;
    }

    public Builder burst(long v) {
      burst = v;
      return this;
    }

    public Builder mode(Mode v) {
      mode = v;
      return this;
    }

    public Builder leaseDuration(Duration v) {
      leaseDuration = v;
      return this;
    }

    public Builder grace(Duration v) {
      grace = v;
      return this;
    }

    public Builder emergency(long v) {
      emergency = v;
      return this;
    }

    public Builder policy(Policy v) {
      policy = v;
      return this;
    }

    public Builder expectedVersion(long v) {
      expectedVersion = v;
      return this;
    }

    public LimitSpec build() {
      return new LimitSpec(
          tenant, resource, ratePerSecond, burst, mode, leaseDuration, grace, emergency,
          policy, expectedVersion);
    }
  }
}
