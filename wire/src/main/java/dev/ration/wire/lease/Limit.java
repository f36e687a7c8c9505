package dev.ration.wire.lease;

import static dev.ration.wire.shape.Fields.code;
import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import dev.ration.wire.shape.Shape;

/**
 * A global limit's configuration: refill rate R per second, burst B, mode, lease duration,
 * grace, emergency allowance E, allocation policy, and the config version minted from the log.
 */
public record Limit(
    String tenant,
    String resource,
    long ratePerSecond,
    long burst,
    Mode mode,
    long leaseDurationMillis,
    long graceMillis,
    long emergency,
    Policy policy,
    long version) {
  /**
   * The one encoding of this value, shared by the protocol and the log: both carry it in
   * this field order.
   */
  public static final Shape<Limit> SHAPE =
      Shape.of(
          Limit.class,
          str("tenant", Limit::tenant),
          str("resource", Limit::resource),
          i64("ratePerSecond", Limit::ratePerSecond),
          i64("burst", Limit::burst),
          code("mode", Limit::mode, Mode::fromCode, Mode::code),
          i64("leaseDurationMillis", Limit::leaseDurationMillis),
          i64("graceMillis", Limit::graceMillis),
          i64("emergency", Limit::emergency),
          code("policy", Limit::policy, Policy::fromCode, Policy::code),
          i64("version", Limit::version));

  /** This configuration under another version: the ledger mints one for every change. */
  public Limit withVersion(long newVersion) {
    return new Limit(tenant, resource, ratePerSecond, burst, mode, leaseDurationMillis,
        graceMillis, emergency, policy, newVersion);
  }
}
