package dev.ration.statemachine.command;

import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.Mode;
import dev.ration.wire.shape.Fields;
import dev.ration.wire.shape.Shape;
import dev.ration.wire.Policy;

/**
 * Create or change the global limit for (tenant, resource). {@code expectedVersion} = 0 means
 * "create or overwrite whatever is there"; otherwise the change applies only if the current
 * config version equals it (else STALE_CONFIG with the current version).
 */
public record SetLimit(
    String tenant,
    String resource,
    long ratePerSecond,
    long burst,
    Mode mode,
    long leaseDurationMillis,
    long graceMillis,
    long emergency,
    Policy policy,
    long expectedVersion)
    implements LeaseCommand {
  public static final int CODE = 1;

  /** Its fields in the log, in this order after the command code. */
  public static final Shape<SetLimit> SHAPE =
      Shape.of(
          SetLimit.class,
          str("tenant", SetLimit::tenant),
          str("resource", SetLimit::resource),
          i64("ratePerSecond", SetLimit::ratePerSecond),
          i64("burst", SetLimit::burst),
          Fields.code("mode", SetLimit::mode, Mode::fromCode, Mode::code),
          i64("leaseDurationMillis", SetLimit::leaseDurationMillis),
          i64("graceMillis", SetLimit::graceMillis),
          i64("emergency", SetLimit::emergency),
          Fields.code("policy", SetLimit::policy, Policy::fromCode, Policy::code),
          i64("expectedVersion", SetLimit::expectedVersion));

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(LeaseCommand.Handler<R> handler) {
    return handler.setLimit(this);
  }
}
