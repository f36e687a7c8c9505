package dev.ration.client.ttl.cache;

/**
 * How many bytes an entry counts against a {@link TtlCache}'s byte bound. Called once per write,
 * under the cache's write lock, so it must be quick and must not touch the cache.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
@FunctionalInterface
public interface Weigher<K, V> {
  /**
   * The entry's size.
   *
   * @param key the key
   * @param value the value
   * @return its bytes, not negative
   */
  long bytes(K key, V value);
}
