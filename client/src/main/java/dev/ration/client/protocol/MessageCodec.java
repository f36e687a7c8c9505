package dev.ration.client.protocol;

import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;
import dev.ration.wire.Mode;
import dev.ration.wire.Outcome;
import dev.ration.wire.Policy;
import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.lease.LimitStatus;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Encodes and decodes frame payloads (the bytes after the 14-byte header). The one place the
 * wire format of every message is written down in code; the server and the client both use it.
 * Stateless and thread-safe: every method is static.
 *
 * <p>Request payload = {@code u32 timeoutMillis | body}; response payload = {@code u16
 * errorCode | body}, where body is {@link Response.Error}'s fields when errorCode != 0, else the
 * kind's reply. Fields are written in record-component order: {@code long} as i64, {@code int}
 * as i32 (two's complement, big-endian), codes (mode, policy, outcome, protocol version) as u8,
 * strings as u16 byte length + UTF-8, byte arrays as u32 length + bytes, booleans as u8 0/1,
 * lists as u32 count + items, and a nested struct that may be absent (a reply's limit or lease)
 * as u8 present + struct. Absent structs decode to {@code null}. See docs/PROTOCOL.md.
 *
 * <p>Decoding never trusts a declared length: each is checked against the bytes that remain
 * before anything is allocated for it. Any payload that does not decode exactly (truncated,
 * trailing bytes, bad code, bad UTF-8) throws {@link MalformedMessageException}.
 */
public final class MessageCodec {
  /** Strings carry a u16 length. */
  public static final int STRING_BYTES_MAX = 0xFFFF;
  /** HELLO's reserved credential: generous for a token, small against the frame maximum. */
  public static final int CREDENTIAL_BYTES_MAX = 16 * 1024;

  // Smallest encoding of one list item, used to bound a declared count before allocating.
  static final int LIMIT_INFO_BYTES_MIN =
      2 + 2 + 8 + 8 + 1 + 8 + 8 + 8 + 1 + 8 + 8 * 4 + 8 + 4 + 4 + 8 * 3 + 8 * 2;
  static final int LEASE_INFO_BYTES_MIN = 8 + 2 * 3 + 8 * 9 + 1 + 8 + 8;
  static final int PEER_INFO_BYTES_MIN = 2 * 4;

  private MessageCodec() {}

  /** A reader whose failures are {@link MalformedMessageException}s naming {@code message.field}. */
  static ByteReader reader(byte[] payload, String message) {
    return ByteReader.naming(payload, message, MalformedMessageException::new);
  }

  // ---------------------------------------------------------------- frames

  /** A request frame at the current protocol version. */
  public static Frame requestFrame(long requestId, int timeoutMillis, Request request) {
    return new Frame(
        Frame.PROTOCOL_VERSION,
        request.kind().code(),
        requestId,
        encodeRequest(timeoutMillis, request));
  }

  /** A response frame for a request of {@code kind}; an error may answer any kind. */
  public static Frame responseFrame(long requestId, Kind kind, Response response) {
    return new Frame(
        Frame.PROTOCOL_VERSION, kind.responseCode(), requestId, encodeResponse(response));
  }

  // ---------------------------------------------------------------- requests

  public static byte[] encodeRequest(int timeoutMillis, Request request) {
    if (timeoutMillis < 0) {
      throw new IllegalArgumentException("timeoutMillis " + timeoutMillis + " < 0");
    }
    ByteWriter w = new ByteWriter(64);
    w.u32("timeoutMillis", timeoutMillis);
    if (request instanceof Request.Hello h) {
        w.u8("Hello.protocolVersion", h.protocolVersion());
        w.i64(h.clientHigh()).i64(h.clientLow());
        byte[] cred = h.credential() == null ? new byte[0] : h.credential();
        if (cred.length > CREDENTIAL_BYTES_MAX) {
          throw new IllegalArgumentException(
              "Hello.credential is " + cred.length + " bytes, max " + CREDENTIAL_BYTES_MAX);
        }
        w.bytes("Hello.credential", cred);
    } else if (request instanceof Request.SetLimit s) {
        w.str("SetLimit.tenant", s.tenant()).str("SetLimit.resource", s.resource());
        w.i64(s.ratePerSecond()).i64(s.burst());
        w.u8("SetLimit.mode", required("SetLimit.mode", s.mode()).code());
        w.i64(s.leaseDurationMillis()).i64(s.graceMillis()).i64(s.emergency());
        w.u8("SetLimit.policy", required("SetLimit.policy", s.policy()).code());
        w.i64(s.expectedVersion());
    } else if (request instanceof Request.GetLimit g) {
        w.str("GetLimit.tenant", g.tenant())
              .str("GetLimit.resource", g.resource())
              .bool(g.stale());
    } else if (request instanceof Request.ListLimits l) {
        w.bool(l.stale());
    } else if (request instanceof Request.AcquireLease a) {
        w.str("AcquireLease.tenant", a.tenant())
              .str("AcquireLease.resource", a.resource())
              .str("AcquireLease.holder", a.holder())
              .i64(a.demandRatePerSecond())
              .i64(a.demandBurst());
    } else if (request instanceof Request.RenewLease r) {
        w.i64(r.leaseId())
              .i64(r.presentedVersion())
              .i64(r.demandRatePerSecond())
              .i64(r.demandBurst())
              .i64(r.admittedPerSecond())
              .i64(r.rejectedPerSecond())
              .i64(r.emergencyUsed());
    } else if (request instanceof Request.ReturnLease r) {
        w.i64(r.leaseId()).i64(r.presentedVersion()).i64(r.unusedBalance());
    } else if (request instanceof Request.ListLeases l) {
        w.str("ListLeases.tenant", l.tenant())
              .str("ListLeases.resource", l.resource())
              .bool(l.stale());
    } else if (request instanceof Request.ClusterStatus c) {
        // No body.
      // --- ttl (issue 4)
    } else if (request instanceof Request.Ttl t) {
      TtlMessages.encodeRequest(w, t.request());
      // --- end ttl
      // --- quota (issue 6)
    } else if (request instanceof Request.Quota q) {
      QuotaMessages.encodeRequest(w, q.request());
      // --- end quota
    } else {
      throw new IllegalArgumentException("unknown message " + request);
    }
    return w.toByteArray();
  }

  public static DecodedRequest decodeRequest(Kind kind, byte[] payload)
      throws MalformedMessageException {
    ByteReader r = reader(payload, kind.name());
    long timeout = r.u32("timeoutMillis");
    if (timeout > Integer.MAX_VALUE) {
      throw new MalformedMessageException(
          kind.name() + ".timeoutMillis", "value " + timeout + " > " + Integer.MAX_VALUE);
    }
    Request request =
        switch (kind) {
          case HELLO ->
              new Request.Hello(
                  r.u8("protocolVersion"),
                  r.i64("clientHigh"),
                  r.i64("clientLow"),
                  r.bytes("credential", CREDENTIAL_BYTES_MAX));
          case SET_LIMIT ->
              new Request.SetLimit(
                  r.str("tenant"),
                  r.str("resource"),
                  r.i64("ratePerSecond"),
                  r.i64("burst"),
                  code(r, "mode", Mode::fromCode),
                  r.i64("leaseDurationMillis"),
                  r.i64("graceMillis"),
                  r.i64("emergency"),
                  code(r, "policy", Policy::fromCode),
                  r.i64("expectedVersion"));
          case GET_LIMIT ->
              new Request.GetLimit(r.str("tenant"), r.str("resource"), r.bool("stale"));
          case LIST_LIMITS -> new Request.ListLimits(r.bool("stale"));
          case ACQUIRE_LEASE ->
              new Request.AcquireLease(
                  r.str("tenant"),
                  r.str("resource"),
                  r.str("holder"),
                  r.i64("demandRatePerSecond"),
                  r.i64("demandBurst"));
          case RENEW_LEASE ->
              new Request.RenewLease(
                  r.i64("leaseId"),
                  r.i64("presentedVersion"),
                  r.i64("demandRatePerSecond"),
                  r.i64("demandBurst"),
                  r.i64("admittedPerSecond"),
                  r.i64("rejectedPerSecond"),
                  r.i64("emergencyUsed"));
          case RETURN_LEASE ->
              new Request.ReturnLease(
                  r.i64("leaseId"), r.i64("presentedVersion"), r.i64("unusedBalance"));
          case LIST_LEASES ->
              new Request.ListLeases(r.str("tenant"), r.str("resource"), r.bool("stale"));
          case CLUSTER_STATUS -> new Request.ClusterStatus();
          // --- ttl (issue 4)
          case TTL_PUT, TTL_CAS, TTL_REFRESH, TTL_DELETE, TTL_GET, TTL_LIST, TTL_NAMESPACE_SET,
              TTL_NAMESPACE_GET -> new Request.Ttl(TtlMessages.decodeRequest(kind, r));
          // --- end ttl
          // --- quota (issue 6)
          case QUOTA_SET, QUOTA_GET, QUOTA_LIST, QUOTA_HISTORY, RESERVE, RESERVATION_COMPLETE, RESERVATION_CANCEL, RESERVATION_LIST, USAGE_INGEST, USAGE_READ, USAGE_ACK, USAGE_AGGREGATE, USAGE_RECONCILE, AUDIT_READ ->
              new Request.Quota(QuotaMessages.decodeRequest(kind, r));
          // --- end quota
        };
    r.end();
    return new DecodedRequest((int) timeout, request);
  }

  // ---------------------------------------------------------------- responses

  public static byte[] encodeResponse(Response response) {
    ByteWriter w = new ByteWriter(64);
    if (response instanceof Response.Error e) {
        if (e.code() == null || e.code() == ErrorCode.OK) {
          throw new IllegalArgumentException("Response.Error needs a non-OK code, got " + e.code());
        }
        w.u16("Error.code", e.code().code());
        w.str("Error.message", e.message()).str("Error.leaderAddress", e.leaderAddress());
        w.i32(e.retryAfterMillis());
    } else if (response instanceof Response.HelloReply h) {
        w.u16("code", 0);
        w.str("HelloReply.serverId", h.serverId());
        w.u8("HelloReply.protocolVersion", h.protocolVersion());
        w.bool(h.leader()).str("HelloReply.leaderAddress", h.leaderAddress());
    } else if (response instanceof Response.SetLimitReply s) {
        w.u16("code", 0);
        outcome(w, "SetLimitReply.outcome", s.outcome());
        w.str("SetLimitReply.message", s.message()).i64(s.currentVersion());
        optionalLimit(w, s.limit());
    } else if (response instanceof Response.GetLimitReply g) {
        w.u16("code", 0);
        w.bool(g.found());
        optionalLimit(w, g.limit());
    } else if (response instanceof Response.LimitList l) {
        w.u16("code", 0);
        List<LimitStatus> limits = l.limits() == null ? List.of() : l.limits();
        w.u32("LimitList.count", limits.size());
        for (LimitStatus i : limits) {
          limit(w, i);
        }
    } else if (response instanceof Response.LeaseReply l) {
        w.u16("code", 0);
        outcome(w, "LeaseReply.outcome", l.outcome());
        w.str("LeaseReply.message", l.message()).i64(l.retryAfterMillis()).i64(l.currentVersion());
        w.bool(l.lease() != null);
        if (l.lease() != null) {
          lease(w, l.lease());
        }
        w.i64(l.startBalance());
    } else if (response instanceof Response.ReturnReply r) {
        w.u16("code", 0);
        outcome(w, "ReturnReply.outcome", r.outcome());
        w.str("ReturnReply.message", r.message())
            .i64(r.leaseId())
            .i64(r.credited())
            .bool(r.alreadyGone());
    } else if (response instanceof Response.LeaseList l) {
        w.u16("code", 0);
        List<LeaseView> leases = l.leases() == null ? List.of() : l.leases();
        w.u32("LeaseList.count", leases.size());
        for (LeaseView i : leases) {
          lease(w, i);
        }
    } else if (response instanceof Response.ClusterStatusReply c) {
        w.u16("code", 0);
        w.str("ClusterStatusReply.serverId", c.serverId())
            .str("ClusterStatusReply.role", c.role())
            .i64(c.term())
            .i64(c.commitIndex())
            .i64(c.appliedIndex())
            .str("ClusterStatusReply.leaderId", c.leaderId())
            .str("ClusterStatusReply.leaderAddress", c.leaderAddress())
            .i64(c.ledgerNowMillis())
            .i64(c.epoch());
        List<Response.PeerInfo> peers = c.peers() == null ? List.of() : c.peers();
        w.u32("ClusterStatusReply.peers.count", peers.size());
        for (Response.PeerInfo p : peers) {
          w.str("PeerInfo.id", p.id())
              .str("PeerInfo.raftAddress", p.raftAddress())
              .str("PeerInfo.clientAddress", p.clientAddress())
              .str("PeerInfo.role", p.role());
        }
      // --- ttl (issue 4)
    } else if (response instanceof Response.Ttl t) {
        w.u16("code", 0);
        TtlMessages.encodeResponse(w, t.response());
      // --- end ttl
      // --- quota (issue 6)
    } else if (response instanceof Response.Quota q) {
        w.u16("code", 0);
        QuotaMessages.encodeResponse(w, q.response());
      // --- end quota
    } else {
      throw new IllegalArgumentException("unknown message " + response);
    }
    return w.toByteArray();
  }

  /**
   * Decodes a response to a request of {@code kind}. A non-zero error code yields a {@link
   * Response.Error} whatever the kind; an error code this version does not know (a newer
   * server) becomes {@link ErrorCode#INTERNAL} with the number in the message.
   */
  public static Response decodeResponse(Kind kind, byte[] payload)
      throws MalformedMessageException {
    ByteReader r = reader(payload, kind.name() + "_REPLY");
    int code = r.u16("errorCode");
    if (code != 0) {
      ErrorCode ec = ErrorCode.fromCode(code);
      String message = r.str("Error.message");
      String leader = r.str("Error.leaderAddress");
      int retryAfter = r.i32("Error.retryAfterMillis");
      r.end();
      if (ec == null) {
        return new Response.Error(
            ErrorCode.INTERNAL, "unknown error code " + code + ": " + message, leader, retryAfter);
      }
      return new Response.Error(ec, message, leader, retryAfter);
    }
    Response response =
        switch (kind) {
          case HELLO ->
              new Response.HelloReply(
                  r.str("serverId"),
                  r.u8("protocolVersion"),
                  r.bool("leader"),
                  r.str("leaderAddress"));
          case SET_LIMIT ->
              new Response.SetLimitReply(
                  outcome(r, "outcome"),
                  r.str("message"),
                  r.i64("currentVersion"),
                  r.present("limit") ? limit(r, "limit") : null);
          case GET_LIMIT ->
              new Response.GetLimitReply(
                  r.bool("found"), r.present("limit") ? limit(r, "limit") : null);
          case LIST_LIMITS -> {
            int n = r.count("limits.count", LIMIT_INFO_BYTES_MIN);
            List<LimitStatus> list = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
              list.add(limit(r, "limits[" + i + "]"));
            }
            yield new Response.LimitList(List.copyOf(list));
          }
          case ACQUIRE_LEASE, RENEW_LEASE ->
              new Response.LeaseReply(
                  outcome(r, "outcome"),
                  r.str("message"),
                  r.i64("retryAfterMillis"),
                  r.i64("currentVersion"),
                  r.present("lease") ? lease(r, "lease") : null,
                  r.i64("startBalance"));
          case RETURN_LEASE ->
              new Response.ReturnReply(
                  outcome(r, "outcome"),
                  r.str("message"),
                  r.i64("leaseId"),
                  r.i64("credited"),
                  r.bool("alreadyGone"));
          case LIST_LEASES -> {
            int n = r.count("leases.count", LEASE_INFO_BYTES_MIN);
            List<LeaseView> list = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
              list.add(lease(r, "leases[" + i + "]"));
            }
            yield new Response.LeaseList(List.copyOf(list));
          }
          case CLUSTER_STATUS -> {
            String serverId = r.str("serverId");
            String role = r.str("role");
            long term = r.i64("term");
            long commit = r.i64("commitIndex");
            long applied = r.i64("appliedIndex");
            String leaderId = r.str("leaderId");
            String leaderAddress = r.str("leaderAddress");
            long ledgerNow = r.i64("ledgerNowMillis");
            long epoch = r.i64("epoch");
            int n = r.count("peers.count", PEER_INFO_BYTES_MIN);
            List<Response.PeerInfo> peers = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
              String p = "peers[" + i + "].";
              peers.add(
                  new Response.PeerInfo(
                      r.str(p + "id"),
                      r.str(p + "raftAddress"),
                      r.str(p + "clientAddress"),
                      r.str(p + "role")));
            }
            yield new Response.ClusterStatusReply(
                serverId,
                role,
                term,
                commit,
                applied,
                leaderId,
                leaderAddress,
                ledgerNow,
                epoch,
                List.copyOf(peers));
          }
          // --- ttl (issue 4)
          case TTL_PUT, TTL_CAS, TTL_REFRESH, TTL_DELETE, TTL_GET, TTL_LIST, TTL_NAMESPACE_SET,
              TTL_NAMESPACE_GET -> new Response.Ttl(TtlMessages.decodeResponse(kind, r));
          // --- end ttl
          // --- quota (issue 6)
          case QUOTA_SET, QUOTA_GET, QUOTA_LIST, QUOTA_HISTORY, RESERVE, RESERVATION_COMPLETE, RESERVATION_CANCEL, RESERVATION_LIST, USAGE_INGEST, USAGE_READ, USAGE_ACK, USAGE_AGGREGATE, USAGE_RECONCILE, AUDIT_READ ->
              new Response.Quota(QuotaMessages.decodeResponse(kind, r));
          // --- end quota
        };
    r.end();
    return response;
  }

  // ---------------------------------------------------------------- nested structs

  private static void outcome(ByteWriter w, String field, Outcome o) {
    if (o == null) {
      throw new IllegalArgumentException(field + " is null");
    }
    w.u8(field, o.code());
  }

  /** An enumeration the wire cannot leave out; null is a caller bug naming the field. */
  static <E> E required(String field, E value) {
    if (value == null) {
      throw new IllegalArgumentException(field + " is null");
    }
    return value;
  }

  /** A one-byte enumeration code; one this version does not know is a malformed field. */
  static <E> E code(ByteReader r, String field, IntFunction<E> fromCode) {
    int code = r.u8(field);
    try {
      return fromCode.apply(code);
    } catch (IllegalArgumentException e) {
      throw new MalformedMessageException(r.what() + "." + field, e.getMessage());
    }
  }

  private static Outcome outcome(ByteReader r, String field) throws MalformedMessageException {
    int code = r.u8(field);
    for (Outcome o : Outcome.values()) {
      if (o.code() == code) {
        return o;
      }
    }
    throw new MalformedMessageException(r.what() + "." + field, "unknown outcome code " + code);
  }

  private static void optionalLimit(ByteWriter w, LimitStatus l) {
    w.bool(l != null);
    if (l != null) {
      limit(w, l);
    }
  }

  private static void limit(ByteWriter w, LimitStatus status) {
    Limit l = status.limit();
    w.str("LimitStatus.tenant", l.tenant()).str("LimitStatus.resource", l.resource());
    w.i64(l.ratePerSecond()).i64(l.burst());
    w.u8("LimitStatus.mode", required("LimitStatus.mode", l.mode()).code());
    w.i64(l.leaseDurationMillis()).i64(l.graceMillis()).i64(l.emergency());
    w.u8("LimitStatus.policy", required("LimitStatus.policy", l.policy()).code());
    w.i64(l.version())
        .i64(status.countedRate())
        .i64(status.countedBurst())
        .i64(status.grantedRate())
        .i64(status.grantedBurst())
        .i64(status.pool())
        .i32(status.leases())
        .i32(status.pendingShrinks())
        .i64(status.rateCeiling())
        .i64(status.burstCeiling())
        .i64(status.emergencyReported())
        .i64(status.demandRate())
        .i64(status.demandBurst());
  }

  private static LimitStatus limit(ByteReader r, String f) {
    String p = f + ".";
    Limit limit =
        new Limit(
            r.str(p + "tenant"),
            r.str(p + "resource"),
            r.i64(p + "ratePerSecond"),
            r.i64(p + "burst"),
            code(r, p + "mode", Mode::fromCode),
            r.i64(p + "leaseDurationMillis"),
            r.i64(p + "graceMillis"),
            r.i64(p + "emergency"),
            code(r, p + "policy", Policy::fromCode),
            r.i64(p + "version"));
    return new LimitStatus(
        limit,
        r.i64(p + "countedRate"),
        r.i64(p + "countedBurst"),
        r.i64(p + "grantedRate"),
        r.i64(p + "grantedBurst"),
        r.i64(p + "pool"),
        r.i32(p + "leases"),
        r.i32(p + "pendingShrinks"),
        r.i64(p + "rateCeiling"),
        r.i64(p + "burstCeiling"),
        r.i64(p + "emergencyReported"),
        r.i64(p + "demandRate"),
        r.i64(p + "demandBurst"));
  }

  private static void lease(ByteWriter w, LeaseView l) {
    w.i64(l.leaseId());
    w.str("LeaseView.tenant", l.tenant())
        .str("LeaseView.resource", l.resource())
        .str("LeaseView.holder", l.holder());
    w.i64(l.epoch())
        .i64(l.version())
        .i64(l.rateShare())
        .i64(l.burstShare())
        .i64(l.countedRate())
        .i64(l.countedBurst())
        .i64(l.grantedAtMillis())
        .i64(l.expiresAtMillis())
        .i64(l.countedUntilMillis());
    w.u8("LeaseView.mode", required("LeaseView.mode", l.mode()).code());
    w.i64(l.emergency()).i64(l.leaseDurationMillis());
  }

  private static LeaseView lease(ByteReader r, String f)
      throws MalformedMessageException {
    String p = f + ".";
    return new LeaseView(
        r.i64(p + "leaseId"),
        r.str(p + "tenant"),
        r.str(p + "resource"),
        r.str(p + "holder"),
        r.i64(p + "epoch"),
        r.i64(p + "version"),
        r.i64(p + "rateShare"),
        r.i64(p + "burstShare"),
        r.i64(p + "countedRate"),
        r.i64(p + "countedBurst"),
        r.i64(p + "grantedAtMillis"),
        r.i64(p + "expiresAtMillis"),
        r.i64(p + "countedUntilMillis"),
        code(r, p + "mode", Mode::fromCode),
        r.i64(p + "emergency"),
        r.i64(p + "leaseDurationMillis"));
  }
}
