package dev.ration.statemachine.command;

import dev.ration.wire.CapacityPolicy;

/**
 * Create or reconfigure a TTL namespace's capacity. Shrinking below the current usage evicts
 * nothing at once; later writes find the namespace full.
 */
public record SetNamespace(String namespace, long maxEntries, long maxBytes,
    CapacityPolicy policy) implements TtlCommand {
  public static final int CODE = 24;

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(TtlCommand.Handler<R> handler) {
    return handler.setNamespace(this);
  }
}
