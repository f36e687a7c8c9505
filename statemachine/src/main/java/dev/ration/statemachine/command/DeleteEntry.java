package dev.ration.statemachine.command;

/**
 * Delete the entry; {@code expectedVersion} 0 = whatever version (deleting an absent entry then
 * succeeds with existed = false), else only that version (VERSION_MISMATCH otherwise).
 */
public record DeleteEntry(String namespace, String key, long expectedVersion) implements TtlCommand {
  public static final int CODE = 23;

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(TtlCommand.Handler<R> handler) {
    return handler.delete(this);
  }
}
