package dev.ration.server.observability;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Goal: the counters of a node's membership and snapshot events are exported as documented. */
class MembershipMetricsTest {
  @Test
  void handOffsAndInstallsAreCounted() {
    AtomicLong handoffs = new AtomicLong(2);
    AtomicLong installs = new AtomicLong(3);
    try (ServerMetrics metrics = new ServerMetrics()) {
      metrics.bindStaleStreamHandoffs(handoffs::get);
      metrics.bindSnapshotInstalls(installs::get);
      handoffs.incrementAndGet();
      String scrape = metrics.scrape();
      assertTrue(scrape.contains("ration_membership_stale_stream_handoffs_total 3.0"), scrape);
      assertTrue(scrape.contains("ration_snapshot_installs_total 3.0"), scrape);
    }
  }
}
