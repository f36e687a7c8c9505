package dev.ration.client.ttl.cache;

/**
 * Computes the value of a key that is not in a {@link TtlCache}, for {@link TtlCache#getOrLoad}.
 * Runs on the thread of the caller that started the load, outside the cache's lock.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
@FunctionalInterface
public interface Loader<K, V> {
  /**
   * The value of {@code key}.
   *
   * @param key the key missing from the cache
   * @return its value, not null
   * @throws Exception if there is none to be had; it reaches every caller waiting on this load
   */
  V load(K key) throws Exception;
}
