package dev.ration.statemachine.command;

import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.Bytes;
import dev.ration.wire.shape.Fields;
import dev.ration.wire.shape.Shape;

/**
 * Store {@code value} under (namespace, key), replacing any entry, with a new version and a new
 * expiry: a plain put always resets the TTL. {@code ttlMillis}: 0 = already expired,
 * {@link #NO_EXPIRY} (−1) = never expires, else expiresAt = now + ttlMillis (ledger time).
 */
public record PutEntry(String namespace, String key, Bytes value, long ttlMillis)
    implements TtlCommand {
  public static final int CODE = 20;

  /** Its fields in the log, in this order after the command code. */
  public static final Shape<PutEntry> SHAPE =
      Shape.of(
          PutEntry.class,
          str("namespace", PutEntry::namespace),
          str("key", PutEntry::key),
          Fields.value("value", PutEntry::value),
          i64("ttlMillis", PutEntry::ttlMillis));

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
