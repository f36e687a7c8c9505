package dev.ration.client.protocol;

import java.util.List;

/** Fixed sample messages shared by the golden and channel tests. */
final class Samples {
  private Samples() {}

  static final Response.LimitInfo LIMIT =
      new Response.LimitInfo(
          "t", "r", 100, 10, 1, 5000, 1000, 7, 0, 3, 11, 12, 13, 14, 15, 2, 1, 16, 17, 18, 19, 20);

  static final Response.LeaseInfo LEASE =
      new Response.LeaseInfo(
          42, "t", "r", "h", 1, 2, 30, 3, 31, 4, 1000, 6000, 7000, 0, 0, 5000);

  static final Response.PeerInfo PEER = new Response.PeerInfo("n1", "a:1", "a:2", "LEADER");
}
