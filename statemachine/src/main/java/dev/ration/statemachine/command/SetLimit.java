package dev.ration.statemachine.command;

import dev.ration.wire.Mode;
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

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(LeaseCommand.Handler<R> handler) {
    return handler.setLimit(this);
  }
}
