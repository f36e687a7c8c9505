package dev.ration.client.ttl.cache;

/**
 * One key's entry in a {@link TtlCache}: its place in the expiry index and the eviction order.
 * The node stays the same while the key is in the cache; each write makes a new immutable
 * {@link Held}, which is what the cache's map holds and readers read. Readers never read or
 * write a node's fields (they only pass it to the read buffer), so the write lock's updates of
 * the links here never invalidate a line a reader needs. Every field is read and written only
 * under the cache's write lock.
 */
final class Node<K, V> {
  final K key;
  /** What the map holds for this key now. */
  Held<K, V> held;

  // Under the write lock.
  /** A copy of {@code held.expiresAtNanos} for the expiry index. */
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

  Node(K key, long expiresAtNanos, long bytes, long expirySequence) {
    this.key = key;
    this.expiresAtNanos = expiresAtNanos;
    this.bytes = bytes;
    this.expirySequence = expirySequence;
  }

  /**
   * A value, the instant it expires on the cache's clock ({@link TtlCache#NEVER} for none), and
   * its key's node. Immutable and compared by identity: a reader gets a value together with the
   * expiry written with it, never one write's value with another's expiry.
   */
  static final class Held<K, V> {
    final V value;
    final long expiresAtNanos;
    final Node<K, V> node;

    Held(V value, long expiresAtNanos, Node<K, V> node) {
      this.value = value;
      this.expiresAtNanos = expiresAtNanos;
      this.node = node;
    }

    boolean liveAt(long nowNanos) {
      return nowNanos < expiresAtNanos;
    }
  }

  @Override
  public String toString() {
    return "Node[" + key + " expiresAt=" + expiresAtNanos + " seq=" + expirySequence + " bytes=" + bytes + "]";
  }
}
