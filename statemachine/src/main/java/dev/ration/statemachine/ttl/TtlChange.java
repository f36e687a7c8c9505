package dev.ration.statemachine.ttl;

import dev.ration.wire.Bytes;
import dev.ration.wire.ChangeKind;

/**
 * One change the TTL ledger made to an entry while applying a log entry: what a watch reports.
 * Not replicated state; the ledger hands the changes of the entry it just applied to whoever
 * asks ({@link TtlLedger#takeChanges()}).
 *
 * @param namespace the entry's namespace
 * @param key the entry's key
 * @param kind what happened
 * @param version the entry's version after a put or refresh, the version removed otherwise
 * @param expiresAtMillis the expiry after a put or refresh (ledger ms, {@link TtlLedger#NEVER}
 *     for none); the removed entry's expiry otherwise
 * @param value the value after a put or refresh; empty for a removal
 */
public record TtlChange(String namespace, String key, ChangeKind kind, long version,
    long expiresAtMillis, Bytes value) {

  /** Bytes this change holds, for bounding a buffer of them (the strings counted once each). */
  public long weight() {
    return 64L + 2L * (namespace.length() + key.length()) + value.length();
  }
}
