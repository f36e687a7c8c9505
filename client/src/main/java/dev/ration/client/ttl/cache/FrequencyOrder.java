package dev.ration.client.ttl.cache;

/**
 * {@link EvictionPolicy#LFU} in O(1) per operation: a list of buckets in increasing use count,
 * each a list of its entries from the one that reached the count longest ago (so, among equal
 * counts, the victim is the one touched longest ago) to the newest. A new entry has count 1; each
 * read or write adds 1, saturating at {@code Long.MAX_VALUE}. Only under the cache's write lock.
 */
final class FrequencyOrder<K, V> implements EvictionOrder<K, V> {
  /** The bucket with the smallest count; null when empty. */
  private Bucket<K, V> lowest;

  /** Entries with one use count, oldest first; buckets are never empty. */
  static final class Bucket<K, V> {
    final long count;
    Bucket<K, V> lower;
    Bucket<K, V> higher;
    Node<K, V> oldest;
    Node<K, V> newest;

    Bucket(long count) {
      this.count = count;
    }
  }

  @Override
  public void added(Node<K, V> node) {
    Bucket<K, V> b = lowest;
    if (b == null || b.count != 1) {
      b = new Bucket<>(1);
      b.higher = lowest;
      if (lowest != null) {
        lowest.lower = b;
      }
      lowest = b;
    }
    append(b, node);
  }

  @Override
  public void touched(Node<K, V> node) {
    Bucket<K, V> from = node.bucket;
    if (from.count == Long.MAX_VALUE) {
      if (node != from.newest) {
        // Not alone in its bucket, so the bucket stays in the list.
        unlinkWithinBucket(node);
        append(from, node);
      }
      return;
    }
    Bucket<K, V> to = from.higher;
    if (to == null || to.count != from.count + 1) {
      to = new Bucket<>(from.count + 1);
      to.lower = from;
      to.higher = from.higher;
      if (from.higher != null) {
        from.higher.lower = to;
      }
      from.higher = to;
    }
    unlink(node);
    append(to, node);
  }

  @Override
  public void removed(Node<K, V> node) {
    unlink(node);
    node.bucket = null;
  }

  @Override
  public Node<K, V> victim(Node<K, V> excluded) {
    for (Bucket<K, V> b = lowest; b != null; b = b.higher) {
      for (Node<K, V> n = b.oldest; n != null; n = n.next) {
        if (n != excluded) {
          return n;
        }
      }
    }
    return null;
  }

  @Override
  public boolean ordersReads() {
    return true;
  }

  /** The use count of {@code node}, for tests. */
  static long countOf(Node<?, ?> node) {
    return node.bucket.count;
  }

  @Override
  public long verify() {
    long entries = 0;
    Bucket<K, V> below = null;
    for (Bucket<K, V> b = lowest; b != null; b = b.higher) {
      if (b.lower != below || (below != null && below.count >= b.count) || b.oldest == null) {
        throw new IllegalStateException("frequency buckets broken at count " + b.count + ": lower "
            + (b.lower == null ? "none" : b.lower.count) + ", expected "
            + (below == null ? "none" : below.count) + ", empty " + (b.oldest == null));
      }
      Node<K, V> before = null;
      for (Node<K, V> n = b.oldest; n != null; n = n.next) {
        if (n.bucket != b || n.previous != before || n.removed) {
          throw new IllegalStateException("bucket " + b.count + " broken at " + n);
        }
        before = n;
        entries++;
      }
      if (before != b.newest) {
        throw new IllegalStateException("bucket " + b.count + " ends at " + before + ", newest is " + b.newest);
      }
      below = b;
    }
    return entries;
  }

  private void append(Bucket<K, V> b, Node<K, V> node) {
    node.bucket = b;
    node.previous = b.newest;
    node.next = null;
    if (b.newest == null) {
      b.oldest = node;
    } else {
      b.newest.next = node;
    }
    b.newest = node;
  }

  /** Takes {@code node} out of its bucket, and the bucket out of the list if it is left empty. */
  private void unlink(Node<K, V> node) {
    Bucket<K, V> b = node.bucket;
    unlinkWithinBucket(node);
    if (b.oldest == null) {
      if (b.lower == null) {
        lowest = b.higher;
      } else {
        b.lower.higher = b.higher;
      }
      if (b.higher != null) {
        b.higher.lower = b.lower;
      }
    }
  }

  private static <K, V> void unlinkWithinBucket(Node<K, V> node) {
    Bucket<K, V> b = node.bucket;
    Node<K, V> p = node.previous;
    Node<K, V> n = node.next;
    if (p == null) {
      b.oldest = n;
    } else {
      p.next = n;
    }
    if (n == null) {
      b.newest = p;
    } else {
      n.previous = p;
    }
    node.previous = null;
    node.next = null;
  }
}
