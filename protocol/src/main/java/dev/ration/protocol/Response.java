package dev.ration.protocol;

import dev.ration.wire.ErrorCode;

import dev.ration.wire.Outcome;
import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.lease.LimitStatus;
import dev.ration.wire.lease.SlotLease;
import dev.ration.wire.lease.SlotStatus;
import dev.ration.wire.quota.AuditRecord;
import dev.ration.wire.security.RoleGrant;
import dev.ration.wire.security.TokenView;

import java.util.List;
import java.util.Optional;

/**
 * Response messages. On the wire a response payload is {@code u16 errorCode | body}: when the
 * code is not OK the body is an {@link Error}; otherwise it is the kind's reply below. Limits
 * and leases travel as the state machine's own values ({@link LimitStatus}, with its limit's
 * fields written flat before the figures, and {@link LeaseView}), so nothing translates them.
 */
public sealed interface Response {

  /**
   * The domain outcome this reply carries, looking inside the TTL and quota wrappers; empty for
   * errors, reads and lists.
   */
  default Optional<Outcome> domainOutcome() {
    Object reply = this;
    if (this instanceof Ttl t) {
      reply = t.response();
    } else if (this instanceof Quota q) {
      reply = q.response();
    }
    return reply instanceof OutcomeReply o ? Optional.ofNullable(o.outcome()) : Optional.empty();
  }

  /**
   * A protocol-level failure. {@code leaderAddress} (host:port of the leader's client endpoint,
   * empty if unknown) is set with NOT_LEADER; {@code retryAfterMillis} with OVERLOADED and
   * UNAVAILABLE.
   */
  record Error(ErrorCode code, String message, String leaderAddress, int retryAfterMillis)
      implements Response {}

  /** What CANCEL did to the request it named. */
  record CancelReply(CancelOutcome outcome, String message) implements Response {}

  /** Answer to SET_LIMIT_CONCURRENCY: on SUCCESS the limit's slot figures with the new C. */
  record SlotLimitReply(Outcome outcome, String message, long currentVersion, SlotStatus slots)
      implements Response, OutcomeReply {}

  /**
   * Answer to ACQUIRE_SLOTS, and one renewal's answer inside {@link SlotRenewalsReply}: on
   * SUCCESS the lease's slot share; otherwise {@code retryAfterMillis} (0 = unknown) and
   * {@code currentVersion} may be set.
   */
  record SlotLeaseReply(Outcome outcome, String message, long retryAfterMillis,
      long currentVersion, SlotLease lease) implements Response, OutcomeReply {}

  /** Answer to RENEW_SLOTS: one reply per renewal, in order (none when the frame is refused). */
  record SlotRenewalsReply(Outcome outcome, String message, List<SlotLeaseReply> replies)
      implements Response, OutcomeReply {}

  /** Answer to GET_SLOTS; {@code found} false for an unknown limit. */
  record SlotsReply(boolean found, SlotStatus status, List<SlotLease> leases)
      implements Response {}

  record HelloReply(String serverId, int protocolVersion, boolean leader, String leaderAddress)
      implements Response {}

  /**
   * Answer to SET_LIMIT. On SUCCESS {@code limit} is the new configuration; on STALE_CONFIG
   * {@code currentVersion} names the version in force.
   */
  record SetLimitReply(Outcome outcome, String message, long currentVersion, LimitStatus limit)
      implements Response, OutcomeReply {}

  /** Answer to GET_LIMIT; {@code found} false for an unknown (tenant, resource). */
  record GetLimitReply(boolean found, LimitStatus limit) implements Response {}

  record LimitList(List<LimitStatus> limits) implements Response {}

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
      LeaseView lease,
      long startBalance)
      implements Response, OutcomeReply {}

  /**
   * The answers to RENEW_LEASES, one per renewal in the request's order, each as RENEW_LEASE
   * would answer it alone. A refusal of the whole frame (a malformed batch, a reused request id)
   * has that outcome and no replies.
   */
  record RenewalsReply(Outcome outcome, String message, List<LeaseReply> replies)
      implements Response, OutcomeReply {
    public RenewalsReply {
      replies = List.copyOf(replies);
    }
  }

  record ReturnReply(
      Outcome outcome, String message, long leaseId, long credited, boolean alreadyGone)
      implements Response, OutcomeReply {}

  record LeaseList(List<LeaseView> leases) implements Response {}

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

  /** The reply to a {@link Request.Ttl}. */
  record Ttl(TtlResponse response) implements Response {}

  /** The reply to a {@link Request.Quota}. */
  record Quota(QuotaResponse response) implements Response {}

  /**
   * Answer to TOKEN_CREATE, TOKEN_REVOKE, ROLE_GRANT and ROLE_REVOKE: {@code changed} false when
   * the state already was as asked; {@code auditSequence} the audit record of the change.
   */
  record SecurityChangeReply(Outcome outcome, String message, boolean changed, long auditSequence)
      implements Response, OutcomeReply {}

  record TokenList(List<TokenView> tokens) implements Response {}

  record GrantList(List<RoleGrant> grants) implements Response {}

  record SecurityAuditList(List<AuditRecord> records) implements Response {}

  /** Who the server takes the connection to be, how it knows, and that identity's grants. */
  record WhoAmIReply(String identity, String authenticatedBy, List<RoleGrant> grants)
      implements Response {}
}
