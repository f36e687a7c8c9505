package dev.ration.client.ttl.cache;

/**
 * The counters of a {@link TtlCache} at one moment, since it was built. Each counter is exact:
 * nothing is sampled or dropped. The snapshot is taken under the cache's write lock, so the
 * write-side counters agree with each other ({@code stored == entries + every eviction}, checked
 * by {@link TtlCache#verify}); hits and misses are counted without the lock, by reads still
 * running while it is taken.
 *
 * @param hits reads ({@code get}, and the first look of {@code getOrLoad}) that found a live value
 * @param misses reads that found none (absent or expired), including callers of
 *     {@code getOrLoad} that then loaded or waited on a load
 * @param loads loads that returned a value
 * @param loadFailures loads that threw or returned null
 * @param stored values handed to the cache by writes and loads, including those that left at once
 *     (written already expired, or heavier than the byte bound)
 * @param expired values that left because their expiry passed
 * @param evictedForCapacity values given up for room
 * @param deleted values removed by {@code delete}
 * @param replaced values overwritten by a later write
 * @param entries entries held now, expired ones included until they are removed
 * @param bytes bytes held now, by the cache's weigher
 */
public record CacheStats(long hits, long misses, long loads, long loadFailures, long stored,
    long expired, long evictedForCapacity, long deleted, long replaced, long entries, long bytes) {

  /**
   * The count of values that left for {@code reason}.
   *
   * @param reason the reason
   * @return its counter
   */
  public long evictions(EvictionReason reason) {
    return switch (reason) {
      case EXPIRED -> expired;
      case CAPACITY -> evictedForCapacity;
      case DELETED -> deleted;
      case REPLACED -> replaced;
    };
  }

  /**
   * Every value that left, whatever the reason.
   *
   * @return the sum of the four eviction counters
   */
  public long evictions() {
    return expired + evictedForCapacity + deleted + replaced;
  }
}
