package dev.ration.wire.quota;

import static dev.ration.wire.shape.Fields.code;
import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import dev.ration.wire.shape.Shape;

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
  /**
   * The one encoding of this value, shared by the protocol and the log: both carry it in
   * this field order.
   */
  public static final Shape<QuotaSpec> SHAPE =
      Shape.of(
          QuotaSpec.class,
          str("scope", QuotaSpec::scope),
          str("resource", QuotaSpec::resource),
          code("kind", QuotaSpec::kind, QuotaKind::fromCode, QuotaKind::code),
          code("window", QuotaSpec::window, Window::fromCode, Window::code),
          i64("limit", QuotaSpec::limit),
          str("unit", QuotaSpec::unit),
          i64("softLimit", QuotaSpec::softLimit),
          code("overage", QuotaSpec::overage, Overage::fromCode, Overage::code),
          i64("overageMax", QuotaSpec::overageMax),
          i64("periodStartMillis", QuotaSpec::periodStartMillis),
          i64("version", QuotaSpec::version),
          str("actor", QuotaSpec::actor),
          i64("changedAtMillis", QuotaSpec::changedAtMillis),
          str("reason", QuotaSpec::reason));

  /**
   * A proposed change, as SET_QUOTA carries it on the wire and in the log: {@code version} is the
   * version the caller last read (0: any), and {@code changedAtMillis} is not carried — the
   * ledger stamps the change with its own time and mints the new version.
   */
  public static final Shape<QuotaSpec> PROPOSAL = SHAPE.omitting("changedAtMillis", 0L);

  /** This entry as stored: under the version the catalog minted, changed at ledger time. */
  public QuotaSpec stored(long newVersion, long atMillis) {
    return new QuotaSpec(scope, resource, kind, window, limit, unit, softLimit, overage,
        overageMax, periodStartMillis, newVersion, actor, atMillis, reason);
  }

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
