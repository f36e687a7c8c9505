package dev.ration.client.ttl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ration.client.ttl.internal.TtlViews;
import dev.ration.wire.CapacityPolicy;
import dev.ration.wire.ttl.NamespaceView;
import org.junit.jupiter.api.Test;

/** Goal: a namespace's capacity and counters reach a service each in its place. */
class NamespaceInfoTest {
  @Test
  void theWireViewConvertsFieldByField() {
    assertEquals(new NamespaceInfo("flags", 100, 4_096, CapacityPolicy.EVICT_SOONEST_EXPIRING, 7, 300, 2, 1),
        TtlViews.namespace(new NamespaceView("flags", 100, 4_096, CapacityPolicy.EVICT_SOONEST_EXPIRING, 7, 300, 2, 1)));
  }
}
