package dev.ration.client;

import java.util.Objects;

/**
 * A lease renewal and the holder's report that rides on it: the lease presented, the demand the
 * holder asks the policy for, what it admitted and rejected since the last report, and the
 * emergency tokens it spent while it had no valid lease (counted once per renewal: a retry of
 * the same call reuses its request id). Built with {@link #builder}.
 *
 * <pre>{@code
 * RenewalReport report = RenewalReport.builder(lease.leaseId(), lease.version())
 *     .demand(500, 100).admittedPerSecond(420).build();
 * }</pre>
 *
 * @param leaseId the lease renewed
 * @param presentedVersion the lease version the holder has
 * @param demandRatePerSecond the rate the holder would like
 * @param demandBurst the burst the holder would like
 * @param admittedPerSecond the rate the holder admitted lately
 * @param rejectedPerSecond the rate the holder rejected lately
 * @param emergencyUsed emergency tokens spent without a valid lease, not yet reported
 */
public record RenewalReport(long leaseId, long presentedVersion, long demandRatePerSecond,
    long demandBurst, long admittedPerSecond, long rejectedPerSecond, long emergencyUsed) {
  /**
   * A report.
   *
   * @param leaseId the lease renewed
   * @param presentedVersion the lease version the holder has
   * @param demandRatePerSecond not negative
   * @param demandBurst not negative
   * @param admittedPerSecond not negative
   * @param rejectedPerSecond not negative
   * @param emergencyUsed not negative
   * @throws IllegalArgumentException on a negative figure
   */
  public RenewalReport {
    if (demandRatePerSecond < 0 || demandBurst < 0 || admittedPerSecond < 0
        || rejectedPerSecond < 0 || emergencyUsed < 0) {
      throw new IllegalArgumentException("renewal figures must not be negative: " + demandRatePerSecond
          + ", " + demandBurst + ", " + admittedPerSecond + ", " + rejectedPerSecond + ", " + emergencyUsed);
    }
  }

  /**
   * A builder renewing {@code leaseId} at {@code presentedVersion}, all figures 0.
   *
   * @param leaseId the lease
   * @param presentedVersion the version the holder has
   * @return a builder
   */
  public static Builder builder(long leaseId, long presentedVersion) {
    return new Builder(leaseId, presentedVersion);
  }

  /** Builds a {@link RenewalReport}; not thread-safe. */
  public static final class Builder {
    private final long leaseId;
    private final long presentedVersion;
    private long demandRatePerSecond;
    private long demandBurst;
    private long admittedPerSecond;
    private long rejectedPerSecond;
    private long emergencyUsed;

    private Builder(long leaseId, long presentedVersion) {
      this.leaseId = leaseId;
      this.presentedVersion = presentedVersion;
    }

    /**
     * The demand the holder asks the limit's policy for.
     *
     * @param ratePerSecond the rate it would like
     * @param burst the burst it would like
     * @return this builder
     */
    public Builder demand(long ratePerSecond, long burst) {
      this.demandRatePerSecond = ratePerSecond;
      this.demandBurst = burst;
      return this;
    }

    /**
     * The rate the holder admitted lately.
     *
     * @param perSecond requests or tokens per second
     * @return this builder
     */
    public Builder admittedPerSecond(long perSecond) {
      this.admittedPerSecond = perSecond;
      return this;
    }

    /**
     * The rate the holder rejected lately.
     *
     * @param perSecond requests or tokens per second
     * @return this builder
     */
    public Builder rejectedPerSecond(long perSecond) {
      this.rejectedPerSecond = perSecond;
      return this;
    }

    /**
     * Emergency tokens spent without a valid lease and not yet reported.
     *
     * @param tokens the tokens spent
     * @return this builder
     */
    public Builder emergencyUsed(long tokens) {
      this.emergencyUsed = tokens;
      return this;
    }

    /**
     * The report.
     *
     * @return the renewal report
     * @throws IllegalArgumentException on a negative figure
     */
    public RenewalReport build() {
      return new RenewalReport(leaseId, presentedVersion, demandRatePerSecond, demandBurst,
          admittedPerSecond, rejectedPerSecond, emergencyUsed);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RenewalReport r && leaseId == r.leaseId && presentedVersion == r.presentedVersion
        && demandRatePerSecond == r.demandRatePerSecond && demandBurst == r.demandBurst
        && admittedPerSecond == r.admittedPerSecond && rejectedPerSecond == r.rejectedPerSecond
        && emergencyUsed == r.emergencyUsed;
  }

  @Override
  public int hashCode() {
    return Objects.hash(leaseId, presentedVersion, demandRatePerSecond, demandBurst,
        admittedPerSecond, rejectedPerSecond, emergencyUsed);
  }
}
