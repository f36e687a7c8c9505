package dev.ration.statemachine.command;

import dev.ration.statemachine.ttl.Bytes;

/**
 * Store {@code value} under (namespace, key), replacing any entry, with a new version and a new
 * expiry: a plain put always resets the TTL. {@code ttlMillis}: 0 = already expired,
 * {@link #NO_EXPIRY} (−1) = never expires, else expiresAt = now + ttlMillis (ledger time).
 */
public record PutEntry(String namespace, String key, Bytes value, long ttlMillis)
    implements TtlCommand {
  public static final int CODE = 20;
  /** ttlMillis meaning "no expiry" (expiresAt = Long.MAX_VALUE). */
  public static final long NO_EXPIRY = -1;

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(TtlCommand.Handler<R> handler) {
    return handler.put(this);
  }
}
