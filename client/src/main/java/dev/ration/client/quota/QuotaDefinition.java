package dev.ration.client.quota;

import dev.ration.client.time.LedgerTime;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import dev.ration.wire.quota.QuotaSpec;
import java.util.Objects;

/**
 * A catalog entry as an operator sets it, built with {@link #rate}, {@link #concurrent},
 * {@link #allocation} or {@link #cumulative}:
 *
 * <pre>{@code
 * QuotaDefinition jobs = QuotaDefinition.concurrent("acme", "jobs", 10)
 *     .unit("jobs").actor("ops").reason("launch").build();
 * }</pre>
 *
 * @param scope the scope ("tenant/project/...")
 * @param resource the resource
 * @param kind what the entry counts
 * @param window the rate window or billing period; {@link Window#NONE} otherwise
 * @param limit the hard limit, in {@code unit}
 * @param unit the unit's name
 * @param softLimit usage at which one alert is raised (0 = none)
 * @param overage what happens past the hard limit
 * @param overageMax admitted beyond the limit with {@link Overage#ALLOW}; each budget holder's
 *     overdraft with {@link Overage#OVERDRAFT}
 * @param periodStart the anchor of billing periods (cumulative entries)
 * @param expectedVersion the version being replaced (0 = any)
 * @param actor who makes the change
 * @param reason why
 */
public record QuotaDefinition(String scope, String resource, QuotaKind kind, Window window,
    long limit, String unit, long softLimit, Overage overage, long overageMax,
    LedgerTime periodStart, long expectedVersion, String actor, String reason) {
  /**
   * A definition.
   *
   * @param scope the scope
   * @param resource the resource
   * @param kind what it counts
   * @param window the window
   * @param limit the hard limit
   * @param unit the unit
   * @param softLimit the soft limit
   * @param overage past the limit
   * @param overageMax the most beyond the limit
   * @param periodStart the period anchor
   * @param expectedVersion the version replaced
   * @param actor who
   * @param reason why
   */
  public QuotaDefinition {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(window, "window");
    Objects.requireNonNull(overage, "overage");
    Objects.requireNonNull(periodStart, "periodStart");
  }

  /**
   * A rate entry: {@code limit} per {@code window}.
   *
   * @param scope the scope
   * @param resource the resource
   * @param limit admitted per window
   * @param window SECOND, MINUTE, HOUR or DAY
   * @return a builder
   */
  public static Builder rate(String scope, String resource, long limit, Window window) {
    return new Builder(scope, resource, QuotaKind.RATE, window, limit);
  }

  /**
   * A concurrent entry: {@code limit} held by outstanding reservations at once.
   *
   * @param scope the scope
   * @param resource the resource
   * @param limit held at once
   * @return a builder
   */
  public static Builder concurrent(String scope, String resource, long limit) {
    return new Builder(scope, resource, QuotaKind.CONCURRENT, Window.NONE, limit);
  }

  /**
   * An allocation entry: {@code limit} held plus allocated.
   *
   * @param scope the scope
   * @param resource the resource
   * @param limit held plus allocated
   * @return a builder
   */
  public static Builder allocation(String scope, String resource, long limit) {
    return new Builder(scope, resource, QuotaKind.ALLOCATION, Window.NONE, limit);
  }

  /**
   * A cumulative entry: {@code limit} per billing period starting at {@code periodStart}.
   *
   * @param scope the scope
   * @param resource the resource
   * @param limit admitted per period
   * @param period HOUR, DAY, WEEK or MONTH
   * @param periodStart the first period's start in ledger time
   * @return a builder
   */
  public static Builder cumulative(String scope, String resource, long limit, Window period,
      LedgerTime periodStart) {
    return new Builder(scope, resource, QuotaKind.CUMULATIVE, period, limit).periodStart(periodStart);
  }

  /**
   * The wire form.
   *
   * @return the catalog spec this definition proposes
   */
  QuotaSpec toSpec() {
    return new QuotaSpec(scope, resource, kind, window, limit, unit, softLimit, overage,
        overageMax, periodStart.millis(), expectedVersion, actor, 0, reason);
  }

  /** Builds a {@link QuotaDefinition}; not thread-safe. Defaults: unit "", no soft limit, REJECT. */
  public static final class Builder {
    private final String scope;
    private final String resource;
    private final QuotaKind kind;
    private final Window window;
    private final long limit;
    private String unit = "units";
    private long softLimit;
    private Overage overage = Overage.REJECT;
    private long overageMax;
    private LedgerTime periodStart = LedgerTime.ofMillis(0);
    private long expectedVersion;
    private String actor = "";
    private String reason = "";

    private Builder(String scope, String resource, QuotaKind kind, Window window, long limit) {
      this.scope = scope;
      this.resource = resource;
      this.kind = kind;
      this.window = window;
      this.limit = limit;
    }

    /**
     * The unit's name ("requests", "bytes"...; default "units", as the CLI's).
     *
     * @param v the unit
     * @return this builder
     */
    public Builder unit(String v) {
      unit = v;
      return this;
    }

    /**
     * Usage at which one alert is raised (0 = none).
     *
     * @param v the soft limit
     * @return this builder
     */
    public Builder softLimit(long v) {
      softLimit = v;
      return this;
    }

    /**
     * Admit up to {@code max} beyond the hard limit, flagged billable.
     *
     * @param max the most beyond the limit
     * @return this builder
     */
    public Builder allowOverage(long max) {
      overage = Overage.ALLOW;
      overageMax = max;
      return this;
    }

    /**
     * A soft quota (RATE and CUMULATIVE): the ledger grants up to the limit, and a budget holder
     * cut off from the cluster may admit up to {@code perHolder} more, reported and billed as
     * overage when it reconnects. A level then admits at most its limit plus {@code perHolder}
     * for every holder cut off at once (docs/QUOTAS.md, "Soft quotas").
     *
     * @param perHolder each holder's overdraft E
     * @return this builder
     */
    public Builder overdraft(long perHolder) {
      overage = Overage.OVERDRAFT;
      overageMax = perHolder;
      return this;
    }

    /**
     * The anchor of billing periods.
     *
     * @param v the first period's start
     * @return this builder
     */
    public Builder periodStart(LedgerTime v) {
      periodStart = v;
      return this;
    }

    /**
     * The version being replaced (compare-and-set; 0 = any).
     *
     * @param v the version
     * @return this builder
     */
    public Builder expectedVersion(long v) {
      expectedVersion = v;
      return this;
    }

    /**
     * Who makes the change (kept in the catalog's history).
     *
     * @param v the actor
     * @return this builder
     */
    public Builder actor(String v) {
      actor = v;
      return this;
    }

    /**
     * Why (kept in the catalog's history).
     *
     * @param v the reason
     * @return this builder
     */
    public Builder reason(String v) {
      reason = v;
      return this;
    }

    /**
     * The definition.
     *
     * @return the quota definition
     */
    public QuotaDefinition build() {
      return new QuotaDefinition(scope, resource, kind, window, limit, unit, softLimit, overage,
          overageMax, periodStart, expectedVersion, actor, reason);
    }
  }
}
