package dev.ration.statemachine.command;

/**
 * Set a live entry's expiry to now + {@code ttlMillis} (or none for −1); the value and version
 * stay. {@code expectedVersion} 0 = any version (a lock holder passes its fencing token, so it
 * never extends somebody else's lock). An absent or expired entry is ENTRY_UNKNOWN.
 */
public record RefreshEntry(String namespace, String key, long ttlMillis, long expectedVersion)
    implements TtlCommand {
  public static final int CODE = 22;

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(TtlCommand.Handler<R> handler) {
    return handler.refresh(this);
  }
}
