package dev.ration.statemachine.command;

import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.CapacityPolicy;
import dev.ration.wire.shape.Fields;
import dev.ration.wire.shape.Shape;

/**
 * Create or reconfigure a TTL namespace's capacity. Shrinking below the current usage evicts
 * nothing at once; later writes find the namespace full.
 */
public record SetNamespace(String namespace, long maxEntries, long maxBytes,
    CapacityPolicy policy) implements TtlCommand {
  public static final int CODE = 24;

  /** Its fields in the log, in this order after the command code. */
  public static final Shape<SetNamespace> SHAPE =
      Shape.of(
          SetNamespace.class,
          str("namespace", SetNamespace::namespace),
          i64("maxEntries", SetNamespace::maxEntries),
          i64("maxBytes", SetNamespace::maxBytes),
          Fields.code("policy", SetNamespace::policy, CapacityPolicy::fromCode, CapacityPolicy::code));

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(TtlCommand.Handler<R> handler) {
    return handler.setNamespace(this);
  }
}
