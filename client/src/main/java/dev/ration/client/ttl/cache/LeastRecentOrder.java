package dev.ration.client.ttl.cache;

/**
 * {@link EvictionPolicy#LRU}: a doubly linked list from the entry touched longest ago (the victim)
 * to the one touched last. Every operation is O(1). Only under the cache's write lock.
 */
final class LeastRecentOrder<K, V> implements EvictionOrder<K, V> {
  private Node<K, V> oldest;
  private Node<K, V> newest;

  @Override
  public void added(Node<K, V> node) {
    append(node);
  }

  @Override
  public void touched(Node<K, V> node) {
    if (node != newest) {
      unlink(node);
      append(node);
    }
  }

  @Override
  public void removed(Node<K, V> node) {
    unlink(node);
  }

  @Override
  public Node<K, V> victim(Node<K, V> excluded) {
    if (oldest == null) {
      return null;
    }
    return oldest != excluded ? oldest : oldest.next;
  }

  @Override
  public boolean ordersReads() {
    return true;
  }

  @Override
  public long verify() {
    long count = 0;
    Node<K, V> before = null;
    for (Node<K, V> n = oldest; n != null; n = n.next) {
      if (n.previous != before || n.removed) {
        throw new IllegalStateException("access order broken at " + n + ": previous " + n.previous
            + ", expected " + before + ", removed " + n.removed);
      }
      before = n;
      count++;
    }
    if (before != newest) {
      throw new IllegalStateException("access order ends at " + before + ", newest is " + newest);
    }
    return count;
  }

  private void append(Node<K, V> node) {
    node.previous = newest;
    node.next = null;
    if (newest == null) {
      oldest = node;
    } else {
      newest.next = node;
    }
    newest = node;
  }

  private void unlink(Node<K, V> node) {
    Node<K, V> p = node.previous;
    Node<K, V> n = node.next;
    if (p == null) {
      oldest = n;
    } else {
      p.next = n;
    }
    if (n == null) {
      newest = p;
    } else {
      n.previous = p;
    }
    node.previous = null;
    node.next = null;
  }
}
