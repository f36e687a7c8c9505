package dev.ration.client.ttl.cache;

/**
 * One key's entry in a {@link TtlCache}. The key's node stays the same while the key is in the
 * cache: a write swaps its {@link Held} in one volatile store, so a reader sees a value together
 * with the expiry written with it, never one write's value with another's expiry. Every other
 * field is read and written only under the cache's write lock.
 */
final class Node<K, V> {
  final K key;
  /** The value and its expiry; replaced whole by each write. */
  volatile Held<V> held;

  // Under the write lock.
  /** A copy of {@code held.expiresAtNanos()} for the expiry index. */
  long expiresAtNanos;
  /** The write sequence of the write that last set the expiry: the index's tie-break. */
  long expirySequence;
  long bytes;
  /** Position in the expiry index; -1 once removed from it. */
  int indexPosition = -1;
  /** Set when the node leaves the map, so that a read recorded earlier is not applied to it. */
  boolean removed;
  /** Neighbours in the access order (LRU) or in the frequency bucket (LFU). */
  Node<K, V> previous;
  Node<K, V> next;
  /** The LFU bucket holding this node. */
  FrequencyOrder.Bucket<K, V> bucket;

  Node(K key, Held<V> held, long bytes, long expirySequence) {
    this.key = key;
    this.held = held;
    this.expiresAtNanos = held.expiresAtNanos();
    this.bytes = bytes;
    this.expirySequence = expirySequence;
  }

  /**
   * A value and the instant it expires on the cache's clock, {@link TtlCache#NEVER} for none.
   */
  record Held<V>(V value, long expiresAtNanos) {
    boolean liveAt(long nowNanos) {
      return nowNanos < expiresAtNanos;
    }
  }

  @Override
  public String toString() {
    return "Node[" + key + " expiresAt=" + expiresAtNanos + " seq=" + expirySequence + " bytes=" + bytes + "]";
  }
}
