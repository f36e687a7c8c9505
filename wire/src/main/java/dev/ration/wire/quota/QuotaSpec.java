package dev.ration.wire.quota;

import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;

/**
 * One version of a catalog entry for (scope, resource). Every change makes a new version, with
 * who ({@code actor}), when ({@code changedAtMillis}, ledger time) and why ({@code reason});
 * old versions stay readable. {@code version} comes from the catalog's counter, so versions rise
 * across the whole catalog and a client can tell a newer configuration from an older one.
 *
 * @param window rate window or billing period; {@code NONE} for concurrent and allocation
 * @param limit the hard limit, in {@code unit}
 * @param softLimit usage at which one alert is raised (0 = no soft threshold)
 * @param overageMax admitted beyond {@code limit} when {@code overage} is ALLOW (else 0)
 * @param periodStartMillis anchor of billing periods (cumulative); 0 otherwise
 */
public record QuotaSpec(
    String scope,
    String resource,
    QuotaKind kind,
    Window window,
    long limit,
    String unit,
    long softLimit,
    Overage overage,
    long overageMax,
    long periodStartMillis,
    long version,
    String actor,
    long changedAtMillis,
    String reason) {

  /** Most a level admits: the limit, plus the overage allowance when the policy allows one. */
  public long capacity() {
    return overage == Overage.ALLOW ? limit + overageMax : limit;
  }

  /** Start of the window or period holding {@code atMillis}; 0 for unwindowed kinds. */
  public long windowStart(long atMillis) {
    if (!kind.windowed()) {
      return 0;
    }
    return window.startOf(atMillis, kind == QuotaKind.CUMULATIVE ? periodStartMillis : 0);
  }
}
