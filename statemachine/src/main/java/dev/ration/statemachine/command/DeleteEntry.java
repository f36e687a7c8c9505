package dev.ration.statemachine.command;

import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.shape.Shape;

/**
 * Delete the entry; {@code expectedVersion} 0 = whatever version (deleting an absent entry then
 * succeeds with existed = false), else only that version (VERSION_MISMATCH otherwise).
 */
public record DeleteEntry(String namespace, String key, long expectedVersion) implements TtlCommand {
  public static final int CODE = 23;

  /** Its fields in the log, in this order after the command code. */
  public static final Shape<DeleteEntry> SHAPE =
      Shape.of(
          DeleteEntry.class,
          str("namespace", DeleteEntry::namespace),
          str("key", DeleteEntry::key),
          i64("expectedVersion", DeleteEntry::expectedVersion));

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(TtlCommand.Handler<R> handler) {
    return handler.delete(this);
  }
}
