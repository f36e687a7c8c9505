package dev.ration.wire.ttl;

import static dev.ration.wire.shape.Fields.code;
import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.CapacityPolicy;
import dev.ration.wire.shape.Shape;

/**
 * A namespace's capacity and counters. {@code entries} and {@code bytes} count stored entries,
 * including expired ones that no Tick or write has removed yet. Evictions are counted by
 * reason: {@code evictedExpired} (removed because expired: by Tick or to make room),
 * {@code evictedCapacity} (live entries evicted by EVICT_SOONEST_EXPIRING).
 */
public record NamespaceView(String name, long maxEntries, long maxBytes, CapacityPolicy policy,
    long entries, long bytes, long evictedExpired, long evictedCapacity) {
  /**
   * The one encoding of this value, shared by the protocol and the log: both carry it in
   * this field order.
   */
  public static final Shape<NamespaceView> SHAPE =
      Shape.of(
          NamespaceView.class,
          str("name", NamespaceView::name),
          i64("maxEntries", NamespaceView::maxEntries),
          i64("maxBytes", NamespaceView::maxBytes),
          code("policy", NamespaceView::policy, CapacityPolicy::fromCode, CapacityPolicy::code),
          i64("entries", NamespaceView::entries),
          i64("bytes", NamespaceView::bytes),
          i64("evictedExpired", NamespaceView::evictedExpired),
          i64("evictedCapacity", NamespaceView::evictedCapacity));
}
