package dev.ration.client.quota;

import dev.ration.client.time.LedgerTime;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import java.util.Objects;

/**
 * One stored version of a catalog entry for (scope, resource). Every change makes a new version,
 * with who ({@code actor}), when ({@code changedAt}, ledger time) and why ({@code reason}).
 * Versions come from the catalog's counter, so they rise across the whole catalog and a newer
 * configuration can be told from an older one. {@link #toDefinition} starts a change of it.
 *
 * @param scope the scope ("tenant/project/...")
 * @param resource the resource
 * @param kind what the entry counts
 * @param window the rate window or billing period; {@link Window#NONE} for concurrent and
 *     allocation entries
 * @param limit the hard limit, in {@code unit}
 * @param unit the unit's name
 * @param softLimit usage at which one alert is raised (0 = none)
 * @param overage what happens past the hard limit
 * @param overageMax admitted beyond the limit with {@link Overage#ALLOW}; each budget holder's
 *     overdraft with {@link Overage#OVERDRAFT} (else 0)
 * @param periodStart the anchor of billing periods (cumulative entries; the origin otherwise)
 * @param version the version the catalog minted for this change
 * @param actor who made the change
 * @param changedAt when the ledger applied the change (ledger time)
 * @param reason why
 */
public record QuotaEntry(String scope, String resource, QuotaKind kind, Window window,
    long limit, String unit, long softLimit, Overage overage, long overageMax,
    LedgerTime periodStart, long version, String actor, LedgerTime changedAt, String reason) {
  /**
   * An entry, validated.
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
   * @param version the version
   * @param actor who
   * @param changedAt when
   * @param reason why
   * @throws NullPointerException if the kind, window, overage or a time is missing
   */
  public QuotaEntry {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(window, "window");
    Objects.requireNonNull(overage, "overage");
    Objects.requireNonNull(periodStart, "periodStart");
    Objects.requireNonNull(changedAt, "changedAt");
  }

  /**
   * The most a level admits: the limit, plus the overage allowance when the policy allows one.
   *
   * @return the capacity, in {@code unit}
   */
  public long capacity() {
    return overage == Overage.ALLOW ? limit + overageMax : limit;
  }

  /**
   * This entry as a definition replacing this version (compare-and-set on {@link #version}),
   * with the same actor and reason.
   *
   * @return the definition
   */
  public QuotaDefinition toDefinition() {
    return new QuotaDefinition(scope, resource, kind, window, limit, unit, softLimit, overage,
        overageMax, periodStart, version, actor, reason);
  }
}
