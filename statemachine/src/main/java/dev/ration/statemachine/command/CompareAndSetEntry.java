package dev.ration.statemachine.command;

import dev.ration.statemachine.ttl.Bytes;

/**
 * Put only if the live entry's version is {@code expectedVersion}; 0 means "absent or expired"
 * (create). Otherwise VERSION_MISMATCH with the current version (0 if absent). A lock is an
 * entry created this way; its version is the fencing token.
 */
public record CompareAndSetEntry(String namespace, String key, long expectedVersion, Bytes value,
    long ttlMillis) implements TtlCommand {
  public static final int CODE = 21;

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(TtlCommand.Handler<R> handler) {
    return handler.compareAndSet(this);
  }
}
