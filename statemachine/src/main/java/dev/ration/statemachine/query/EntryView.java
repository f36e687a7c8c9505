package dev.ration.statemachine.query;

import dev.ration.wire.Bytes;

/**
 * A live TTL entry as a reader sees it. {@code version} is minted from the replica's global
 * version counter by every put and compare-and-set (refresh keeps it): a fencing token.
 * {@code expiresAtMillis} is absolute ledger time; Long.MAX_VALUE means no expiry.
 */
public record EntryView(String namespace, String key, Bytes value, long version,
    long expiresAtMillis) {}
