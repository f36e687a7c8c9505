package dev.ration.wire.ttl;

import dev.ration.wire.CapacityPolicy;

/**
 * A namespace's capacity and counters. {@code entries} and {@code bytes} count stored entries,
 * including expired ones that no Tick or write has removed yet. Evictions are counted by
 * reason: {@code evictedExpired} (removed because expired: by Tick or to make room),
 * {@code evictedCapacity} (live entries evicted by EVICT_SOONEST_EXPIRING).
 */
public record NamespaceView(String name, long maxEntries, long maxBytes, CapacityPolicy policy,
    long entries, long bytes, long evictedExpired, long evictedCapacity) {}
