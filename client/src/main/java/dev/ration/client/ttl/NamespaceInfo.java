package dev.ration.client.ttl;

import dev.ration.wire.CapacityPolicy;
import java.util.Objects;

/**
 * A namespace's capacity and counters. {@code entries} and {@code bytes} count stored entries,
 * including expired ones that no tick or write has removed yet. Evictions are counted by
 * reason.
 *
 * @param name the namespace
 * @param maxEntries the most entries it holds
 * @param maxBytes the most bytes (keys plus values) it holds
 * @param policy what a write does when the namespace is full
 * @param entries entries stored
 * @param bytes bytes stored
 * @param evictedExpired entries removed because they had expired (by a tick or to make room)
 * @param evictedCapacity live entries evicted to make room ({@link CapacityPolicy#EVICT_SOONEST_EXPIRING})
 */
public record NamespaceInfo(String name, long maxEntries, long maxBytes, CapacityPolicy policy,
    long entries, long bytes, long evictedExpired, long evictedCapacity) {
  /**
   * A namespace view, validated.
   *
   * @param name the namespace
   * @param maxEntries the most entries
   * @param maxBytes the most bytes
   * @param policy the capacity policy
   * @param entries entries stored
   * @param bytes bytes stored
   * @param evictedExpired expired entries removed
   * @param evictedCapacity live entries evicted
   * @throws NullPointerException if the name or the policy is missing
   */
  public NamespaceInfo {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(policy, "policy");
  }
}
