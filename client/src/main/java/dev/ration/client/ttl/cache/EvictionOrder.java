package dev.ration.client.ttl.cache;

/**
 * The order an {@link EvictionPolicy} gives up live entries in. One implementation per policy,
 * chosen by one exhaustive switch in {@link TtlCache}. Only under the cache's write lock.
 */
interface EvictionOrder<K, V> {
  /** A new entry entered the cache (written or loaded). */
  void added(Node<K, V> node);

  /** An entry was read or written again. */
  void touched(Node<K, V> node);

  /** An entry left the cache. */
  void removed(Node<K, V> node);

  /** The next entry to give up, never {@code excluded}; null when there is none. */
  Node<K, V> victim(Node<K, V> excluded);

  /** Whether reads change this order, so that the cache must record them. */
  boolean ordersReads();

  /** Checks this order's own structure; returns how many entries it holds. */
  long verify();
}
