package dev.ration.cli;

import dev.ration.wire.lease.Limit;

import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.lease.LimitStatus;
import dev.ration.wire.lease.SlotLease;
import dev.ration.wire.lease.SlotStatus;

import dev.ration.protocol.Response;
import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import java.util.List;
import java.util.Locale;

/**
 * Turns protocol replies into {@link Fields} for printing. The JSON field names here are a
 * stable interface for scripts (docs/CLI.md): add fields, never rename or remove them. Times are
 * ledger milliseconds exactly as the server sent them (the commands add their instants, {@link
 * Instants}); modes, policies and outcomes are printed by name. Stateless.
 */
final class Views {
  private Views() {}

  static Fields limit(LimitStatus status) {
    Limit l = status.limit();
    return new Fields()
        .put("tenant", l.tenant())
        .put("resource", l.resource())
        .put("ratePerSecond", l.ratePerSecond())
        .put("burst", l.burst())
        .put("mode", modeName(l.mode()))
        .put("leaseDurationMillis", l.leaseDurationMillis())
        .put("graceMillis", l.graceMillis())
        .put("emergency", l.emergency())
        .put("policy", policyName(l.policy()))
        .put("version", l.version())
        .put("countedRate", status.countedRate())
        .put("countedBurst", status.countedBurst())
        .put("grantedRate", status.grantedRate())
        .put("grantedBurst", status.grantedBurst())
        .put("pool", status.pool())
        .put("leases", status.leases())
        .put("pendingShrinks", status.pendingShrinks())
        .put("rateCeiling", status.rateCeiling())
        .put("burstCeiling", status.burstCeiling())
        .put("emergencyReported", status.emergencyReported())
        // What unacknowledged shrinks still hold (counted − granted), and the demand the live
        // holders last reported (what the demand-driven policies split).
        .put("pendingRate", status.countedRate() - status.grantedRate())
        .put("pendingBurst", status.countedBurst() - status.grantedBurst())
        .put("demandRate", status.demandRate())
        .put("demandBurst", status.demandBurst());
  }

  static final List<String> LIMIT_COLUMNS = List.of(
      "tenant", "resource", "ratePerSecond", "burst", "mode", "policy", "leaseDurationMillis",
      "version", "leases", "countedRate", "grantedRate", "countedBurst", "grantedBurst",
      "pendingShrinks", "demandRate", "pool");

  static Fields lease(LeaseView l) {
    return new Fields()
        .put("leaseId", l.leaseId())
        .put("tenant", l.tenant())
        .put("resource", l.resource())
        .put("holder", l.holder())
        .put("epoch", l.epoch())
        .put("version", l.version())
        .put("rateShare", l.rateShare())
        .put("burstShare", l.burstShare())
        .put("countedRate", l.countedRate())
        .put("countedBurst", l.countedBurst())
        .put("grantedAtMillis", l.grantedAtMillis())
        .put("expiresAtMillis", l.expiresAtMillis())
        .put("countedUntilMillis", l.countedUntilMillis())
        .put("mode", modeName(l.mode()))
        .put("emergency", l.emergency())
        .put("leaseDurationMillis", l.leaseDurationMillis())
        // The part of the counted share an unacknowledged shrink still holds.
        .put("pendingRate", l.countedRate() - l.rateShare())
        .put("pendingBurst", l.countedBurst() - l.burstShare());
  }

  static final List<String> LEASE_COLUMNS = List.of(
      "leaseId", "tenant", "resource", "holder", "epoch", "version", "rateShare", "countedRate",
      "pendingRate", "burstShare", "countedBurst", "pendingBurst", "expiresAt",
      "countedUntil");

  static Fields setLimitReply(Response.SetLimitReply r) {
    Fields f = new Fields().put("outcome", r.outcome().name()).put("message", r.message());
    f.put("currentVersion", r.currentVersion());
    if (r.limit() != null) {
      f.put("limit", limit(r.limit()));
    }
    return f;
  }

  static Fields leaseReply(Response.LeaseReply r) {
    Fields f = new Fields().put("outcome", r.outcome().name()).put("message", r.message());
    f.put("retryAfterMillis", r.retryAfterMillis()).put("currentVersion", r.currentVersion());
    f.put("startBalance", r.startBalance());
    if (r.lease() != null) {
      f.put("lease", lease(r.lease()));
    }
    return f;
  }

  static Fields slots(SlotStatus s) {
    return new Fields()
        .put("tenant", s.tenant())
        .put("resource", s.resource())
        .put("concurrency", s.concurrency())
        .put("version", s.version())
        .put("countedSlots", s.countedSlots())
        .put("grantedSlots", s.grantedSlots())
        .put("slotCeiling", s.slotCeiling())
        .put("demandSlots", s.demandSlots())
        .put("slotLeases", s.slotLeases())
        .put("pendingSlotShrinks", s.pendingSlotShrinks());
  }

  static Fields slotLease(SlotLease l) {
    return new Fields()
        .put("leaseId", l.leaseId())
        .put("holder", l.holder())
        .put("epoch", l.epoch())
        .put("version", l.version())
        .put("slotShare", l.slotShare())
        .put("countedSlots", l.countedSlots())
        .put("grantedAtMillis", l.grantedAtMillis())
        .put("expiresAtMillis", l.expiresAtMillis())
        .put("countedUntilMillis", l.countedUntilMillis());
  }

  static Fields slotLimitReply(Response.SlotLimitReply r) {
    Fields f = new Fields().put("outcome", r.outcome().name()).put("message", r.message());
    f.put("currentVersion", r.currentVersion());
    if (r.slots() != null) {
      f.put("slots", slots(r.slots()));
    }
    return f;
  }

  static Fields slotLeaseReply(Response.SlotLeaseReply r) {
    Fields f = new Fields().put("outcome", r.outcome().name()).put("message", r.message());
    f.put("retryAfterMillis", r.retryAfterMillis()).put("currentVersion", r.currentVersion());
    if (r.lease() != null) {
      f.put("lease", slotLease(r.lease()));
    }
    return f;
  }

  static Fields returnReply(Response.ReturnReply r) {
    return new Fields()
        .put("outcome", r.outcome().name())
        .put("message", r.message())
        .put("leaseId", r.leaseId())
        .put("credited", r.credited())
        .put("alreadyGone", r.alreadyGone());
  }

  /** One row of `cluster status`: a server that answered. */
  static Fields statusRow(String address, Response.ClusterStatusReply s) {
    return new Fields()
        .put("address", address)
        .put("reachable", true)
        .put("id", s.serverId())
        .put("role", s.role())
        .put("term", s.term())
        .put("commitIndex", s.commitIndex())
        .put("appliedIndex", s.appliedIndex())
        .put("leaderId", s.leaderId())
        .put("leaderAddress", s.leaderAddress())
        .put("ledgerNowMillis", s.ledgerNowMillis())
        .put("epoch", s.epoch())
        .put("members", members(s.peers()))
        .put("error", "");
  }

  /** The replicated configuration as the server sees it: ids, listeners marked. */
  static String members(List<Response.PeerInfo> peers) {
    List<String> ids = new java.util.ArrayList<>();
    for (Response.PeerInfo p : peers) {
      ids.add("LISTENER".equals(p.role()) ? p.id() + "(listener)" : p.id());
    }
    return String.join(",", ids);
  }

  /** One row of `cluster status`: a server that did not answer, and why. */
  static Fields unreachableRow(String address, String why) {
    return new Fields()
        .put("address", address)
        .put("reachable", false)
        .put("id", "")
        .put("role", "UNREACHABLE")
        .put("term", Fields.NONE)
        .put("commitIndex", Fields.NONE)
        .put("appliedIndex", Fields.NONE)
        .put("leaderId", "")
        .put("leaderAddress", "")
        .put("ledgerNowMillis", Fields.NONE)
        .put("epoch", Fields.NONE)
        .put("members", "")
        .put("error", why);
  }

  static final List<String> STATUS_COLUMNS = List.of(
      "id", "address", "role", "term", "commitIndex", "appliedIndex", "leaderId", "members", "error");

  static String modeName(Mode mode) {
    return enumName(mode.name());
  }

  static String policyName(Policy policy) {
    return enumName(policy.name());
  }

  /** HARD_LIMIT -> hard-limit: how modes and policies are spelt on the command line. */
  static String enumName(String constant) {
    return constant.toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
