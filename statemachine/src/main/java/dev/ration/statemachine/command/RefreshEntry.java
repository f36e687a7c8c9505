package dev.ration.statemachine.command;

import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.shape.Shape;

/**
 * Set a live entry's expiry to now + {@code ttlMillis} (or none for −1); the value and version
 * stay. {@code expectedVersion} 0 = any version (a lock holder passes its fencing token, so it
 * never extends somebody else's lock). An absent or expired entry is ENTRY_UNKNOWN.
 */
public record RefreshEntry(String namespace, String key, long ttlMillis, long expectedVersion)
    implements TtlCommand {
  public static final int CODE = 22;

  /** Its fields in the log, in this order after the command code. */
  public static final Shape<RefreshEntry> SHAPE =
      Shape.of(
          RefreshEntry.class,
          str("namespace", RefreshEntry::namespace),
          str("key", RefreshEntry::key),
          i64("ttlMillis", RefreshEntry::ttlMillis),
          i64("expectedVersion", RefreshEntry::expectedVersion));

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(TtlCommand.Handler<R> handler) {
    return handler.refresh(this);
  }
}
