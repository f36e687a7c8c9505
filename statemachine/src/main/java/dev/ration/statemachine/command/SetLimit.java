package dev.ration.statemachine.command;

import static dev.ration.wire.shape.Fields.struct;

import dev.ration.wire.lease.Limit;
import dev.ration.wire.shape.Shape;

/**
 * Create or change the global limit for ({@code limit.tenant()}, {@code limit.resource()}).
 * {@code limit.version()} is the version the caller last read, as in optimistic concurrency
 * control: 0 means "create or overwrite whatever is there"; otherwise the change applies only if
 * the current config version equals it (else STALE_CONFIG with the current version). The ledger
 * mints the new version; the stored limit never keeps the one proposed.
 */
public record SetLimit(Limit limit) implements LeaseCommand {
  public static final int CODE = 1;

  /** Its fields in the log, in this order after the command code: the limit's own encoding. */
  public static final Shape<SetLimit> SHAPE =
      Shape.of(SetLimit.class, struct("limit", SetLimit::limit, Limit.SHAPE));

  /** The version the caller last read (0: any). */
  public long expectedVersion() {
    return limit.version();
  }

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(LeaseCommand.Handler<R> handler) {
    return handler.setLimit(this);
  }
}
