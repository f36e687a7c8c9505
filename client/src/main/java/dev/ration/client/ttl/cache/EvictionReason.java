package dev.ration.client.ttl.cache;

/**
 * Why a value left a {@link TtlCache}. Every value a write hands to the cache leaves it exactly
 * once, counted under one reason in {@link CacheStats}.
 */
public enum EvictionReason {
  /**
   * Its expiry passed: removed by a sweep, by a write that found it expired, or written already
   * expired (a TTL of zero or less, an expiry instant not after now). A value that had expired
   * when something else removed it counts here, not under that other reason.
   */
  EXPIRED,
  /** Given up for room: the entry or byte bound, or a value heavier than the byte bound alone. */
  CAPACITY,
  /** Removed by {@link TtlCache#delete}. */
  DELETED,
  /**
   * Overwritten by a later write of its key ({@code put}, {@code putKeepTtl}, a load), even one
   * whose own value then left at once (already expired, or too heavy).
   */
  REPLACED
}
