package dev.ration.protocol;

import static dev.ration.wire.shape.Fields.bool;
import static dev.ration.wire.shape.Fields.bytes;
import static dev.ration.wire.shape.Fields.code;
import static dev.ration.wire.shape.Fields.i32;
import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.list;
import static dev.ration.wire.shape.Fields.optional;
import static dev.ration.wire.shape.Fields.str;
import static dev.ration.wire.shape.Fields.struct;
import static dev.ration.wire.shape.Fields.u8;

import dev.ration.wire.Mode;
import dev.ration.wire.Outcome;
import dev.ration.wire.Policy;
import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.lease.LimitStatus;
import dev.ration.wire.lease.SlotLease;
import dev.ration.wire.lease.SlotStatus;
import dev.ration.wire.shape.Shape;

/**
 * The shapes of the session, limit, lease and cluster messages (kinds 0x01–0x1F): each field
 * list is written once here and serves both directions. The order is the wire order, pinned by
 * the golden tests and listed in docs/PROTOCOL.md.
 */
final class LeaseMessages {
  private LeaseMessages() {}

  static final Shape<Request.Hello> HELLO =
      Shape.of(
          Request.Hello.class,
          u8("protocolVersion", Request.Hello::protocolVersion),
          i64("clientHigh", Request.Hello::clientHigh),
          i64("clientLow", Request.Hello::clientLow),
          bytes("credential", Request.Hello::credential, MessageCodec.CREDENTIAL_BYTES_MAX));

  static final Shape<Request.SetLimit> SET_LIMIT =
      Shape.of(Request.SetLimit.class, struct("limit", Request.SetLimit::limit, Limit.SHAPE));

  static final Shape<Request.GetLimit> GET_LIMIT =
      Shape.of(
          Request.GetLimit.class,
          str("tenant", Request.GetLimit::tenant),
          str("resource", Request.GetLimit::resource),
          bool("stale", Request.GetLimit::stale));

  static final Shape<Request.ListLimits> LIST_LIMITS =
      Shape.of(Request.ListLimits.class, bool("stale", Request.ListLimits::stale));

  static final Shape<Request.AcquireLease> ACQUIRE_LEASE =
      Shape.of(
          Request.AcquireLease.class,
          str("tenant", Request.AcquireLease::tenant),
          str("resource", Request.AcquireLease::resource),
          str("holder", Request.AcquireLease::holder),
          i64("demandRatePerSecond", Request.AcquireLease::demandRatePerSecond),
          i64("demandBurst", Request.AcquireLease::demandBurst));

  static final Shape<Request.RenewLease> RENEW_LEASE =
      Shape.of(
          Request.RenewLease.class,
          i64("leaseId", Request.RenewLease::leaseId),
          i64("presentedVersion", Request.RenewLease::presentedVersion),
          i64("demandRatePerSecond", Request.RenewLease::demandRatePerSecond),
          i64("demandBurst", Request.RenewLease::demandBurst),
          i64("admittedPerSecond", Request.RenewLease::admittedPerSecond),
          i64("rejectedPerSecond", Request.RenewLease::rejectedPerSecond),
          i64("emergencyUsed", Request.RenewLease::emergencyUsed));

  static final Shape<Request.RenewLeases> RENEW_LEASES =
      Shape.of(
          Request.RenewLeases.class,
          list("renewals", Request.RenewLeases::renewals, RENEW_LEASE));

  static final Shape<Request.ReturnLease> RETURN_LEASE =
      Shape.of(
          Request.ReturnLease.class,
          i64("leaseId", Request.ReturnLease::leaseId),
          i64("presentedVersion", Request.ReturnLease::presentedVersion),
          i64("unusedBalance", Request.ReturnLease::unusedBalance));

  static final Shape<Request.ListLeases> LIST_LEASES =
      Shape.of(
          Request.ListLeases.class,
          str("tenant", Request.ListLeases::tenant),
          str("resource", Request.ListLeases::resource),
          bool("stale", Request.ListLeases::stale));

  static final Shape<Request.SetLimitConcurrency> SET_LIMIT_CONCURRENCY =
      Shape.of(
          Request.SetLimitConcurrency.class,
          struct("limit", Request.SetLimitConcurrency::limit, Limit.SHAPE),
          i64("concurrency", Request.SetLimitConcurrency::concurrency));

  static final Shape<Request.AcquireSlots> ACQUIRE_SLOTS =
      Shape.of(
          Request.AcquireSlots.class,
          str("tenant", Request.AcquireSlots::tenant),
          str("resource", Request.AcquireSlots::resource),
          str("holder", Request.AcquireSlots::holder),
          i64("demandSlots", Request.AcquireSlots::demandSlots));

  static final Shape<Request.SlotRenewal> SLOT_RENEWAL =
      Shape.of(
          Request.SlotRenewal.class,
          i64("leaseId", Request.SlotRenewal::leaseId),
          i64("presentedVersion", Request.SlotRenewal::presentedVersion),
          i64("running", Request.SlotRenewal::running),
          i64("queued", Request.SlotRenewal::queued),
          i64("release", Request.SlotRenewal::release));

  static final Shape<Request.RenewSlots> RENEW_SLOTS =
      Shape.of(
          Request.RenewSlots.class,
          list("renewals", Request.RenewSlots::renewals, SLOT_RENEWAL));

  static final Shape<Request.GetSlots> GET_SLOTS =
      Shape.of(
          Request.GetSlots.class,
          str("tenant", Request.GetSlots::tenant),
          str("resource", Request.GetSlots::resource),
          bool("stale", Request.GetSlots::stale));

  static final Shape<Request.ClusterStatus> CLUSTER_STATUS = Shape.of(Request.ClusterStatus.class);

  static final Shape<Request.Cancel> CANCEL =
      Shape.of(Request.Cancel.class, i64("requestId", Request.Cancel::requestId));

  // Replies.

  static final Shape<Response.HelloReply> HELLO_REPLY =
      Shape.of(
          Response.HelloReply.class,
          str("serverId", Response.HelloReply::serverId),
          u8("protocolVersion", Response.HelloReply::protocolVersion),
          bool("leader", Response.HelloReply::leader),
          str("leaderAddress", Response.HelloReply::leaderAddress));

  static final Shape<Limit> LIMIT = Limit.SHAPE;

  /** A limit's fields flat, then its ledger figures. */
  static final Shape<LimitStatus> LIMIT_STATUS =
      Shape.of(
          LimitStatus.class,
          struct("limit", LimitStatus::limit, LIMIT),
          i64("countedRate", LimitStatus::countedRate),
          i64("countedBurst", LimitStatus::countedBurst),
          i64("grantedRate", LimitStatus::grantedRate),
          i64("grantedBurst", LimitStatus::grantedBurst),
          i64("pool", LimitStatus::pool),
          i32("leases", LimitStatus::leases),
          i32("pendingShrinks", LimitStatus::pendingShrinks),
          i64("rateCeiling", LimitStatus::rateCeiling),
          i64("burstCeiling", LimitStatus::burstCeiling),
          i64("emergencyReported", LimitStatus::emergencyReported),
          i64("demandRate", LimitStatus::demandRate),
          i64("demandBurst", LimitStatus::demandBurst));

  static final Shape<LeaseView> LEASE_VIEW = LeaseView.SHAPE;

  static final Shape<Response.SetLimitReply> SET_LIMIT_REPLY =
      Shape.of(
          Response.SetLimitReply.class,
          code("outcome", Response.SetLimitReply::outcome, Outcome::fromCode, Outcome::code),
          str("message", Response.SetLimitReply::message),
          i64("currentVersion", Response.SetLimitReply::currentVersion),
          optional("limit", Response.SetLimitReply::limit, LIMIT_STATUS));

  static final Shape<Response.GetLimitReply> GET_LIMIT_REPLY =
      Shape.of(
          Response.GetLimitReply.class,
          bool("found", Response.GetLimitReply::found),
          optional("limit", Response.GetLimitReply::limit, LIMIT_STATUS));

  static final Shape<Response.LimitList> LIMIT_LIST =
      Shape.of(Response.LimitList.class, list("limits", Response.LimitList::limits, LIMIT_STATUS));

  static final Shape<Response.LeaseReply> LEASE_REPLY =
      Shape.of(
          Response.LeaseReply.class,
          code("outcome", Response.LeaseReply::outcome, Outcome::fromCode, Outcome::code),
          str("message", Response.LeaseReply::message),
          i64("retryAfterMillis", Response.LeaseReply::retryAfterMillis),
          i64("currentVersion", Response.LeaseReply::currentVersion),
          optional("lease", Response.LeaseReply::lease, LEASE_VIEW),
          i64("startBalance", Response.LeaseReply::startBalance));

  static final Shape<Response.RenewalsReply> RENEWALS_REPLY =
      Shape.of(
          Response.RenewalsReply.class,
          code("outcome", Response.RenewalsReply::outcome, Outcome::fromCode, Outcome::code),
          str("message", Response.RenewalsReply::message),
          list("replies", Response.RenewalsReply::replies, LEASE_REPLY));

  static final Shape<Response.CancelReply> CANCEL_REPLY =
      Shape.of(
          Response.CancelReply.class,
          code("outcome", Response.CancelReply::outcome, CancelOutcome::fromCode, CancelOutcome::code),
          str("message", Response.CancelReply::message));

  static final Shape<Response.ReturnReply> RETURN_REPLY =
      Shape.of(
          Response.ReturnReply.class,
          code("outcome", Response.ReturnReply::outcome, Outcome::fromCode, Outcome::code),
          str("message", Response.ReturnReply::message),
          i64("leaseId", Response.ReturnReply::leaseId),
          i64("credited", Response.ReturnReply::credited),
          bool("alreadyGone", Response.ReturnReply::alreadyGone));

  static final Shape<Response.LeaseList> LEASE_LIST =
      Shape.of(Response.LeaseList.class, list("leases", Response.LeaseList::leases, LEASE_VIEW));

  static final Shape<Response.SlotLimitReply> SLOT_LIMIT_REPLY =
      Shape.of(
          Response.SlotLimitReply.class,
          code("outcome", Response.SlotLimitReply::outcome, Outcome::fromCode, Outcome::code),
          str("message", Response.SlotLimitReply::message),
          i64("currentVersion", Response.SlotLimitReply::currentVersion),
          optional("slots", Response.SlotLimitReply::slots, SlotStatus.SHAPE));

  static final Shape<Response.SlotLeaseReply> SLOT_LEASE_REPLY =
      Shape.of(
          Response.SlotLeaseReply.class,
          code("outcome", Response.SlotLeaseReply::outcome, Outcome::fromCode, Outcome::code),
          str("message", Response.SlotLeaseReply::message),
          i64("retryAfterMillis", Response.SlotLeaseReply::retryAfterMillis),
          i64("currentVersion", Response.SlotLeaseReply::currentVersion),
          optional("lease", Response.SlotLeaseReply::lease, SlotLease.SHAPE));

  static final Shape<Response.SlotRenewalsReply> SLOT_RENEWALS_REPLY =
      Shape.of(
          Response.SlotRenewalsReply.class,
          code("outcome", Response.SlotRenewalsReply::outcome, Outcome::fromCode, Outcome::code),
          str("message", Response.SlotRenewalsReply::message),
          list("replies", Response.SlotRenewalsReply::replies, SLOT_LEASE_REPLY));

  static final Shape<Response.SlotsReply> SLOTS_REPLY =
      Shape.of(
          Response.SlotsReply.class,
          bool("found", Response.SlotsReply::found),
          optional("status", Response.SlotsReply::status, SlotStatus.SHAPE),
          list("leases", Response.SlotsReply::leases, SlotLease.SHAPE));

  static final Shape<Response.PeerInfo> PEER =
      Shape.of(
          Response.PeerInfo.class,
          str("id", Response.PeerInfo::id),
          str("raftAddress", Response.PeerInfo::raftAddress),
          str("clientAddress", Response.PeerInfo::clientAddress),
          str("role", Response.PeerInfo::role));

  static final Shape<Response.ClusterStatusReply> CLUSTER_STATUS_REPLY =
      Shape.of(
          Response.ClusterStatusReply.class,
          str("serverId", Response.ClusterStatusReply::serverId),
          str("role", Response.ClusterStatusReply::role),
          i64("term", Response.ClusterStatusReply::term),
          i64("commitIndex", Response.ClusterStatusReply::commitIndex),
          i64("appliedIndex", Response.ClusterStatusReply::appliedIndex),
          str("leaderId", Response.ClusterStatusReply::leaderId),
          str("leaderAddress", Response.ClusterStatusReply::leaderAddress),
          i64("ledgerNowMillis", Response.ClusterStatusReply::ledgerNowMillis),
          i64("epoch", Response.ClusterStatusReply::epoch),
          list("peers", Response.ClusterStatusReply::peers, PEER));
}
