package dev.ration.client.protocol;

import dev.ration.wire.Outcome;

import java.util.List;

/**
 * Response messages. On the wire a response payload is {@code u16 errorCode | body}: when the
 * code is not OK the body is an {@link Error}; otherwise it is the kind's reply below.
 */
public sealed interface Response {

  /**
   * A protocol-level failure. {@code leaderAddress} (host:port of the leader's client endpoint,
   * empty if unknown) is set with NOT_LEADER; {@code retryAfterMillis} with OVERLOADED and
   * UNAVAILABLE.
   */
  record Error(ErrorCode code, String message, String leaderAddress, int retryAfterMillis)
      implements Response {}

  record HelloReply(String serverId, int protocolVersion, boolean leader, String leaderAddress)
      implements Response {}

  /**
   * A limit with its ledger figures (see the state machine's LimitStatus). {@code demandRate}
   * and {@code demandBurst} (appended for the regional limiter, issue 3) are the sums of the
   * demand last reported by the live holders; counted − granted is what unacknowledged shrinks
   * still hold.
   */
  record LimitInfo(
      String tenant,
      String resource,
      long ratePerSecond,
      long burst,
      int modeCode,
      long leaseDurationMillis,
      long graceMillis,
      long emergency,
      int policyCode,
      long version,
      long countedRate,
      long countedBurst,
      long grantedRate,
      long grantedBurst,
      long pool,
      int leases,
      int pendingShrinks,
      long rateCeiling,
      long burstCeiling,
      long emergencyReported,
      long demandRate,
      long demandBurst) {

    /** Without the demand figures (both 0): the form before issue 3. */
    public LimitInfo(String tenant, String resource, long ratePerSecond, long burst, int modeCode,
        long leaseDurationMillis, long graceMillis, long emergency, int policyCode, long version,
        long countedRate, long countedBurst, long grantedRate, long grantedBurst, long pool,
        int leases, int pendingShrinks, long rateCeiling, long burstCeiling,
        long emergencyReported) {
      this(tenant, resource, ratePerSecond, burst, modeCode, leaseDurationMillis, graceMillis,
          emergency, policyCode, version, countedRate, countedBurst, grantedRate, grantedBurst,
          pool, leases, pendingShrinks, rateCeiling, burstCeiling, emergencyReported, 0, 0);
    }
  }

  record LeaseInfo(
      long leaseId,
      String tenant,
      String resource,
      String holder,
      long epoch,
      long version,
      long rateShare,
      long burstShare,
      long countedRate,
      long countedBurst,
      long grantedAtMillis,
      long expiresAtMillis,
      long countedUntilMillis,
      int modeCode,
      long emergency,
      long leaseDurationMillis) {}

  /**
   * Answer to SET_LIMIT. On SUCCESS {@code limit} is the new configuration; on STALE_CONFIG
   * {@code currentVersion} names the version in force.
   */
  record SetLimitReply(Outcome outcome, String message, long currentVersion, LimitInfo limit)
      implements Response {}

  /** Answer to GET_LIMIT; {@code found} false for an unknown (tenant, resource). */
  record GetLimitReply(boolean found, LimitInfo limit) implements Response {}

  record LimitList(List<LimitInfo> limits) implements Response {}

  /**
   * Answer to ACQUIRE_LEASE and RENEW_LEASE. On SUCCESS {@code lease} is the granted version and
   * {@code startBalance} the tokens handed over from the returned-token pool (acquire only).
   * Otherwise {@code retryAfterMillis} (0 = unknown) and {@code currentVersion} may be set.
   */
  record LeaseReply(
      Outcome outcome,
      String message,
      long retryAfterMillis,
      long currentVersion,
      LeaseInfo lease,
      long startBalance)
      implements Response {}

  record ReturnReply(
      Outcome outcome, String message, long leaseId, long credited, boolean alreadyGone)
      implements Response {}

  record LeaseList(List<LeaseInfo> leases) implements Response {}

  record PeerInfo(String id, String raftAddress, String clientAddress, String role) {}

  record ClusterStatusReply(
      String serverId,
      String role,
      long term,
      long commitIndex,
      long appliedIndex,
      String leaderId,
      String leaderAddress,
      long ledgerNowMillis,
      long epoch,
      List<PeerInfo> peers)
      implements Response {}

  // --- ttl (issue 4)
  /** The reply to a {@link Request.Ttl}. */
  record Ttl(TtlResponse response) implements Response {}
  // --- end ttl

  // --- quota (issue 6)
  /** The reply to a {@link Request.Quota}. */
  record Quota(QuotaResponse response) implements Response {}
  // --- end quota
}
