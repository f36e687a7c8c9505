package dev.ration.client.ttl.cache;

/**
 * {@link EvictionPolicy#SOONEST_EXPIRING}: the cache's expiry index already holds this order, so
 * this keeps nothing of its own and reads record nothing. Only under the cache's write lock.
 */
final class SoonestExpiringOrder<K, V> implements EvictionOrder<K, V> {
  private final ExpiryIndex<K, V> index;

  SoonestExpiringOrder(ExpiryIndex<K, V> index) {
    this.index = index;
  }

  @Override
  public void added(Node<K, V> node) {}

  @Override
  public void touched(Node<K, V> node) {}

  @Override
  public void removed(Node<K, V> node) {}

  @Override
  public Node<K, V> victim(Node<K, V> excluded) {
    return index.firstExcept(excluded);
  }

  @Override
  public boolean ordersReads() {
    return false;
  }

  @Override
  public long verify() {
    return index.size();
  }
}
