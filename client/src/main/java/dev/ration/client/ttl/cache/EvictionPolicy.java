package dev.ration.client.ttl.cache;

/**
 * Which live entry a {@link TtlCache} gives up when a write needs room and no expired entry is
 * left to remove. The entry being written is never its own victim.
 */
public enum EvictionPolicy {
  /** The entry read or written longest ago. */
  LRU,
  /**
   * The entry read and written the fewest times since it entered the cache; among those, the one
   * touched longest ago. Counts are never decayed, so an entry that was popular once keeps its
   * place until it expires or is deleted.
   */
  LFU,
  /**
   * The entry that expires soonest; among equal expiries, the one whose expiry was set longest
   * ago. Entries without expiry go last. Reads do not change this order, so reads of a cache
   * under this policy record nothing.
   */
  SOONEST_EXPIRING
}
