package dev.ration.client.ttl.cache;

import java.util.Arrays;

/**
 * Every entry of a {@link TtlCache} ordered by (expiry, expiry sequence): a binary min-heap whose
 * nodes know their position, so an entry is added, moved or removed in O(log n) and the soonest
 * is read in O(1). It drives the sweep of expired entries and the {@code SOONEST_EXPIRING}
 * policy. Entries without expiry sit at the end of the order ({@code NEVER} is the largest
 * expiry). Only under the cache's write lock.
 */
final class ExpiryIndex<K, V> {
  private static final int INITIAL_CAPACITY = 16;

  private Node<K, V>[] heap = newArray(INITIAL_CAPACITY);
  private int size;

  int size() {
    return size;
  }

  /** The soonest entry, or null when empty. */
  Node<K, V> first() {
    return size == 0 ? null : heap[0];
  }

  /**
   * The soonest entry other than {@code excluded}, or null. The second smallest of a heap is a
   * child of its root.
   */
  Node<K, V> firstExcept(Node<K, V> excluded) {
    if (size == 0) {
      return null;
    }
    if (heap[0] != excluded) {
      return heap[0];
    }
    if (size == 1) {
      return null;
    }
    if (size == 2 || before(heap[1], heap[2])) {
      return heap[1];
    }
    return heap[2];
  }

  void add(Node<K, V> node) {
    if (node.indexPosition != -1) {
      throw new IllegalStateException("node " + node + " already indexed at " + node.indexPosition);
    }
    if (size == heap.length) {
      heap = Arrays.copyOf(heap, heap.length * 2);
    }
    heap[size] = node;
    node.indexPosition = size;
    size++;
    up(size - 1);
  }

  /** Restores the order after {@code node}'s expiry or sequence changed. */
  void moved(Node<K, V> node) {
    int i = positionOf(node);
    up(i);
    down(node.indexPosition);
  }

  void remove(Node<K, V> node) {
    int i = positionOf(node);
    size--;
    Node<K, V> last = heap[size];
    heap[size] = null;
    node.indexPosition = -1;
    if (i != size) {
      heap[i] = last;
      last.indexPosition = i;
      up(i);
      down(last.indexPosition);
    }
    if (heap.length > INITIAL_CAPACITY && size < heap.length / 4) {
      heap = Arrays.copyOf(heap, heap.length / 2);
    }
  }

  /** Whether {@code node} is in this index, at the position it records. */
  boolean holds(Node<K, V> node) {
    int i = node.indexPosition;
    return i >= 0 && i < size && heap[i] == node;
  }

  /** Checks the heap order and every node's position; returns the node count. */
  int verify() {
    for (int i = 0; i < size; i++) {
      Node<K, V> n = heap[i];
      if (n == null || n.indexPosition != i) {
        throw new IllegalStateException("expiry index slot " + i + " holds " + n + " at position "
            + (n == null ? "none" : n.indexPosition));
      }
      if (i > 0 && before(n, heap[(i - 1) / 2])) {
        throw new IllegalStateException("expiry index out of order: " + n + " at " + i
            + " before its parent " + heap[(i - 1) / 2]);
      }
    }
    for (int i = size; i < heap.length; i++) {
      if (heap[i] != null) {
        throw new IllegalStateException("expiry index slot " + i + " past size " + size + " holds " + heap[i]);
      }
    }
    return size;
  }

  private int positionOf(Node<K, V> node) {
    int i = node.indexPosition;
    if (i < 0 || i >= size || heap[i] != node) {
      throw new IllegalStateException("node " + node + " not at its position " + i + " of " + size);
    }
    return i;
  }

  static boolean before(Node<?, ?> a, Node<?, ?> b) {
    return a.expiresAtNanos < b.expiresAtNanos
        || (a.expiresAtNanos == b.expiresAtNanos && a.expirySequence < b.expirySequence);
  }

  private void up(int i) {
    Node<K, V> n = heap[i];
    while (i > 0) {
      int parent = (i - 1) / 2;
      Node<K, V> p = heap[parent];
      if (!before(n, p)) {
        break;
      }
      heap[i] = p;
      p.indexPosition = i;
      i = parent;
    }
    heap[i] = n;
    n.indexPosition = i;
  }

  private void down(int i) {
    Node<K, V> n = heap[i];
    int half = size / 2;
    while (i < half) {
      int child = 2 * i + 1;
      int right = child + 1;
      if (right < size && before(heap[right], heap[child])) {
        child = right;
      }
      if (!before(heap[child], n)) {
        break;
      }
      heap[i] = heap[child];
      heap[i].indexPosition = i;
      i = child;
    }
    heap[i] = n;
    n.indexPosition = i;
  }

  @SuppressWarnings("unchecked")
  private static <K, V> Node<K, V>[] newArray(int length) {
    return (Node<K, V>[]) new Node<?, ?>[length];
  }
}
