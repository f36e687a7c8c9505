package dev.ration.statemachine.command;

import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.Bytes;
import dev.ration.wire.shape.Fields;
import dev.ration.wire.shape.Shape;

/**
 * Put only if the live entry's version is {@code expectedVersion}; 0 means "absent or expired"
 * (create). Otherwise VERSION_MISMATCH with the current version (0 if absent). A lock is an
 * entry created this way; its version is the fencing token.
 */
public record CompareAndSetEntry(String namespace, String key, long expectedVersion, Bytes value,
    long ttlMillis) implements TtlCommand {
  public static final int CODE = 21;

  /** Its fields in the log, in this order after the command code. */
  public static final Shape<CompareAndSetEntry> SHAPE =
      Shape.of(
          CompareAndSetEntry.class,
          str("namespace", CompareAndSetEntry::namespace),
          str("key", CompareAndSetEntry::key),
          i64("expectedVersion", CompareAndSetEntry::expectedVersion),
          Fields.value("value", CompareAndSetEntry::value),
          i64("ttlMillis", CompareAndSetEntry::ttlMillis));

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(TtlCommand.Handler<R> handler) {
    return handler.compareAndSet(this);
  }
}
