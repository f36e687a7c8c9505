package dev.ration.client.ttl.internal;

import dev.ration.client.ttl.NamespaceInfo;
import dev.ration.wire.ttl.NamespaceView;

/** Not API: the one conversion of the wire's namespace view into {@link NamespaceInfo}. */
public final class TtlViews {
  private TtlViews() {}

  /**
   * The public form of a namespace.
   *
   * @param v the namespace as the wire carries it
   * @return the namespace
   */
  public static NamespaceInfo namespace(NamespaceView v) {
    return new NamespaceInfo(v.name(), v.maxEntries(), v.maxBytes(), v.policy(), v.entries(),
        v.bytes(), v.evictedExpired(), v.evictedCapacity());
  }
}
