package dev.ration.protocol;

import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import dev.ration.wire.lease.Limit;

import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.lease.LimitStatus;

import java.util.List;

/** Fixed sample messages shared by the golden and channel tests. */
final class Samples {
  private Samples() {}

  static final LimitStatus LIMIT =
      new LimitStatus(
          new Limit("t", "r", 100, 10, Mode.BEST_EFFORT, 5000, 1000, 7, Policy.FREE_CAPACITY, 3),
          11, 12, 13, 14, 15, 2, 1, 16, 17, 18, 19, 20);

  static final LeaseView LEASE =
      new LeaseView(
          42, "t", "r", "h", 1, 2, 30, 3, 31, 4, 1000, 6000, 7000, Mode.HARD, 0, 5000);

  static final Response.PeerInfo PEER = new Response.PeerInfo("n1", "a:1", "a:2", "LEADER");
}
