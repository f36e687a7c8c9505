package dev.ration.protocol;

import dev.ration.wire.ErrorCode;

import dev.ration.wire.lease.Limit;
import dev.ration.wire.Mode;
import dev.ration.wire.Policy;

import dev.ration.wire.Outcome;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Goal: pin the wire encoding of every request and response kind byte for byte. A change here
 * is a protocol change: bump the version or append a kind, never edit a golden string to pass.
 */
class MessageCodecGoldenTest {
  private static final HexFormat HEX = HexFormat.of();

  private static void request(Request r, int timeoutMillis, String hex) throws Exception {
    byte[] bytes = MessageCodec.encodeRequest(timeoutMillis, r);
    assertEquals(hex, HEX.formatHex(bytes), "encoding of " + r);
    DecodedRequest d = MessageCodec.decodeRequest(r.kind(), HEX.parseHex(hex));
    assertEquals(timeoutMillis, d.timeoutMillis());
    if (r instanceof Request.Hello h) {
      Request.Hello got = (Request.Hello) d.request();
      assertEquals(h.protocolVersion(), got.protocolVersion());
      assertEquals(h.clientHigh(), got.clientHigh());
      assertEquals(h.clientLow(), got.clientLow());
      assertArrayEquals(h.credential(), got.credential());
    } else {
      assertEquals(r, d.request());
    }
  }

  private static void response(Kind kind, Response r, String hex) throws Exception {
    byte[] bytes = MessageCodec.encodeResponse(r);
    assertEquals(hex, HEX.formatHex(bytes), "encoding of " + r);
    assertEquals(r, MessageCodec.decodeResponse(kind, HEX.parseHex(hex)));
  }

  @Test
  void hello() throws Exception {
    request(
        new Request.Hello(1, 0x0102030405060708L, -1L, new byte[] {(byte) 0xAB}),
        250,
        "000000fa" + "01" + "0102030405060708" + "ffffffffffffffff" + "00000001ab");
  }

  @Test
  void setLimit() throws Exception {
    request(
        new Request.SetLimit(new Limit("t", "r", 100, 10, Mode.BEST_EFFORT, 5000, 1000, 7, Policy.FREE_CAPACITY, -1)),
        0,
        "00000000" + "000174" + "000172" + "0000000000000064" + "000000000000000a" + "01"
            + "0000000000001388" + "00000000000003e8" + "0000000000000007" + "00"
            + "ffffffffffffffff");
  }

  @Test
  void getLimitListLimitsListLeasesClusterStatus() throws Exception {
    request(new Request.GetLimit("t", "é", true), 1, "00000001" + "000174" + "0002c3a9" + "01");
    request(new Request.ListLimits(false), 2, "00000002" + "00");
    request(new Request.ListLeases("", "", true), 3, "00000003" + "0000" + "0000" + "01");
    request(new Request.ClusterStatus(), 4, "00000004");
  }

  @Test
  void leases() throws Exception {
    request(
        new Request.AcquireLease("t", "r", "h", 5, 6),
        100,
        "00000064" + "000174" + "000172" + "000168" + "0000000000000005" + "0000000000000006");
    request(
        new Request.RenewLease(1, 2, 3, 4, 5, 6, 7),
        100,
        "00000064" + "0000000000000001" + "0000000000000002" + "0000000000000003"
            + "0000000000000004" + "0000000000000005" + "0000000000000006" + "0000000000000007");
    request(
        new Request.ReturnLease(9, 8, 7),
        100,
        "00000064" + "0000000000000009" + "0000000000000008" + "0000000000000007");
  }

  @Test
  void cancel() throws Exception {
    request(new Request.Cancel(0x1234), 0, "00000000" + "0000000000001234");
    response(Kind.CANCEL, new Response.CancelReply(CancelOutcome.CANCELLED, ""), "0000" + "01" + "0000");
    response(
        Kind.CANCEL,
        new Response.CancelReply(CancelOutcome.TOO_LATE, "p"),
        "0000" + "02" + "0001" + "70");
    response(Kind.CANCEL, new Response.CancelReply(CancelOutcome.NOT_FOUND, ""), "0000" + "03" + "0000");
    assertThrows(MalformedMessageException.class,
        () -> MessageCodec.decodeResponse(Kind.CANCEL, HEX.parseHex("0000" + "09" + "0000")));
  }

  @Test
  void renewLeasesAndItsReply() throws Exception {
    // u32 count, then each renewal exactly as RENEW_LEASE carries it.
    request(
        new Request.RenewLeases(List.of(new Request.RenewLease(1, 2, 3, 4, 5, 6, 7),
            new Request.RenewLease(8, 9, 0, 0, 0, 0, 0))),
        100,
        "00000064" + "00000002"
            + "0000000000000001" + "0000000000000002" + "0000000000000003"
            + "0000000000000004" + "0000000000000005" + "0000000000000006" + "0000000000000007"
            + "0000000000000008" + "0000000000000009" + "0000000000000000"
            + "0000000000000000" + "0000000000000000" + "0000000000000000" + "0000000000000000");
    // u16 0 (not an error), u8 outcome, str message, u32 count, then each answer as
    // RENEW_LEASE's reply body.
    response(
        Kind.RENEW_LEASES,
        new Response.RenewalsReply(Outcome.SUCCESS, "", List.of(
            new Response.LeaseReply(Outcome.VERSION_MISMATCH, "v", 0, 4, null, 0))),
        "0000" + "00" + "0000" + "00000001"
            + "05" + "000176" + "0000000000000000" + "0000000000000004" + "00"
            + "0000000000000000");
    response(
        Kind.RENEW_LEASES,
        new Response.RenewalsReply(Outcome.INVALID_ARGUMENT, "x", List.of()),
        "0000" + "07" + "000178" + "00000000");
  }

  @Test
  void slotKinds() throws Exception {
    // SET_LIMIT's limit, then i64 concurrency.
    request(
        new Request.SetLimitConcurrency(
            new Limit("t", "r", 0, 0, Mode.HARD, 1000, 100, 0, Policy.FAIR_SHARE, 0), 6),
        100,
        "00000064" + "000174" + "000172" + "0000000000000000" + "0000000000000000" + "00"
            + "00000000000003e8" + "0000000000000064" + "0000000000000000" + "01"
            + "0000000000000000" + "0000000000000006");
    request(
        new Request.AcquireSlots("t", "r", "h", 3),
        100,
        "00000064" + "000174" + "000172" + "000168" + "0000000000000003");
    request(
        new Request.RenewSlots(List.of(new Request.SlotRenewal(1, 2, 3, 4, -1))),
        100,
        "00000064" + "00000001" + "0000000000000001" + "0000000000000002"
            + "0000000000000003" + "0000000000000004" + "ffffffffffffffff");
    request(new Request.GetSlots("t", "r", true), 100, "00000064" + "000174" + "000172" + "01");
    dev.ration.wire.lease.SlotStatus status =
        new dev.ration.wire.lease.SlotStatus("t", "r", 6, 9, 5, 4, 6, 7, 2, 1);
    String statusHex = "000174" + "000172" + "0000000000000006" + "0000000000000009"
        + "0000000000000005" + "0000000000000004" + "0000000000000006" + "0000000000000007"
        + "00000002" + "00000001";
    response(
        Kind.SET_LIMIT_CONCURRENCY,
        new Response.SlotLimitReply(Outcome.SUCCESS, "", 9, status),
        "0000" + "00" + "0000" + "0000000000000009" + "01" + statusHex);
    dev.ration.wire.lease.SlotLease lease =
        new dev.ration.wire.lease.SlotLease(1, "t", "r", "h", 2, 3, 4, 5, 6, 7, 8, 1000);
    String leaseHex = "0000000000000001" + "000174" + "000172" + "000168" + "0000000000000002"
        + "0000000000000003" + "0000000000000004" + "0000000000000005" + "0000000000000006"
        + "0000000000000007" + "0000000000000008" + "00000000000003e8";
    response(
        Kind.ACQUIRE_SLOTS,
        new Response.SlotLeaseReply(Outcome.SUCCESS, "", 0, 3, lease),
        "0000" + "00" + "0000" + "0000000000000000" + "0000000000000003" + "01" + leaseHex);
    response(
        Kind.RENEW_SLOTS,
        new Response.SlotRenewalsReply(Outcome.SUCCESS, "", List.of(
            new Response.SlotLeaseReply(Outcome.LEASE_EXPIRED, "x", 0, 3, null))),
        "0000" + "00" + "0000" + "00000001"
            + "04" + "000178" + "0000000000000000" + "0000000000000003" + "00");
    response(
        Kind.GET_SLOTS,
        new Response.SlotsReply(true, status, List.of(lease)),
        "0000" + "01" + "01" + statusHex + "00000001" + leaseHex);
  }

  @Test
  void errorReplyForAnyKind() throws Exception {
    String hex = "0001" + "0002" + "6e6c" + "0008" + "683a31323334" + "00000000";
    hex = "0001" + "0002" + "6e6c" + "0006" + "683a31323334" + "00000000";
    for (Kind k : Kind.values()) {
      response(k, new Response.Error(ErrorCode.NOT_LEADER, "nl", "h:1234", 0), hex);
    }
    response(
        Kind.ACQUIRE_LEASE,
        new Response.Error(ErrorCode.OVERLOADED, "", "", 50),
        "0002" + "0000" + "0000" + "00000032");
  }

  @Test
  void unknownErrorCodeDecodesAsInternal() throws Exception {
    Response r =
        MessageCodec.decodeResponse(Kind.HELLO, HEX.parseHex("03e7" + "0001" + "78" + "0000" + "00000000"));
    assertEquals(new Response.Error(ErrorCode.INTERNAL, "unknown error code 999: x", "", 0), r);
  }

  @Test
  void helloReply() throws Exception {
    response(
        Kind.HELLO,
        new Response.HelloReply("n1", 1, true, "h:1"),
        "0000" + "00026e31" + "01" + "01" + "0003683a31");
  }

  private static final String LIMIT_HEX =
      "000174" + "000172" + "0000000000000064" + "000000000000000a" + "01" + "0000000000001388"
          + "00000000000003e8" + "0000000000000007" + "00" + "0000000000000003"
          + "000000000000000b" + "000000000000000c" + "000000000000000d" + "000000000000000e"
          + "000000000000000f" + "00000002" + "00000001" + "0000000000000010"
          + "0000000000000011" + "0000000000000012" + "0000000000000013" + "0000000000000014";

  private static final String LEASE_HEX =
      "000000000000002a" + "000174" + "000172" + "000168" + "0000000000000001"
          + "0000000000000002" + "000000000000001e" + "0000000000000003" + "000000000000001f"
          + "0000000000000004" + "00000000000003e8" + "0000000000001770" + "0000000000001b58"
          + "00" + "0000000000000000" + "0000000000001388";

  @Test
  void limitReplies() throws Exception {
    assertEquals(MessageCodec.LIMIT_INFO_BYTES_MIN + 2, HEX.parseHex(LIMIT_HEX).length);
    response(
        Kind.SET_LIMIT,
        new Response.SetLimitReply(Outcome.SUCCESS, "", 3, Samples.LIMIT),
        "0000" + "00" + "0000" + "0000000000000003" + "01" + LIMIT_HEX);
    response(
        Kind.SET_LIMIT,
        new Response.SetLimitReply(Outcome.STALE_CONFIG, "v", 4, null),
        "0000" + "06" + "000176" + "0000000000000004" + "00");
    response(Kind.GET_LIMIT, new Response.GetLimitReply(true, Samples.LIMIT), "0000" + "01" + "01" + LIMIT_HEX);
    response(Kind.GET_LIMIT, new Response.GetLimitReply(false, null), "0000" + "00" + "00");
    response(Kind.LIST_LIMITS, new Response.LimitList(List.of()), "0000" + "00000000");
    response(
        Kind.LIST_LIMITS,
        new Response.LimitList(List.of(Samples.LIMIT, Samples.LIMIT)),
        "0000" + "00000002" + LIMIT_HEX + LIMIT_HEX);
  }

  @Test
  void leaseReplies() throws Exception {
    assertEquals(MessageCodec.LEASE_INFO_BYTES_MIN + 3, HEX.parseHex(LEASE_HEX).length);
    response(
        Kind.ACQUIRE_LEASE,
        new Response.LeaseReply(Outcome.SUCCESS, "", 0, 2, Samples.LEASE, 9),
        "0000" + "00" + "0000" + "0000000000000000" + "0000000000000002" + "01" + LEASE_HEX
            + "0000000000000009");
    response(
        Kind.RENEW_LEASE,
        new Response.LeaseReply(Outcome.LIMIT_EXHAUSTED, "full", 250, 0, null, 0),
        "0000" + "02" + "000466756c6c" + "00000000000000fa" + "0000000000000000" + "00"
            + "0000000000000000");
    response(
        Kind.RETURN_LEASE,
        new Response.ReturnReply(Outcome.SUCCESS, "", 42, 5, true),
        "0000" + "00" + "0000" + "000000000000002a" + "0000000000000005" + "01");
    response(Kind.LIST_LEASES, new Response.LeaseList(List.of()), "0000" + "00000000");
    response(
        Kind.LIST_LEASES,
        new Response.LeaseList(List.of(Samples.LEASE)),
        "0000" + "00000001" + LEASE_HEX);
  }

  @Test
  void clusterStatusReply() throws Exception {
    response(
        Kind.CLUSTER_STATUS,
        new Response.ClusterStatusReply("n1", "LEADER", 5, 10, 9, "n1", "a:2", 1234, 3, List.of(Samples.PEER)),
        "0000" + "00026e31" + "00064c4541444552" + "0000000000000005" + "000000000000000a"
            + "0000000000000009" + "00026e31" + "0003613a32" + "00000000000004d2"
            + "0000000000000003" + "00000001" + "00026e31" + "0003613a31" + "0003613a32"
            + "00064c4541444552");
    response(
        Kind.CLUSTER_STATUS,
        new Response.ClusterStatusReply("", "", 0, 0, 0, "", "", 0, 0, List.of()),
        "0000" + "0000" + "0000" + "0000000000000000" + "0000000000000000" + "0000000000000000"
            + "0000" + "0000" + "0000000000000000" + "0000000000000000" + "00000000");
  }

  @Test
  void requestFrameHeader() {
    Frame f = MessageCodec.requestFrame(7, 100, new Request.ListLimits(true));
    assertEquals(Frame.PROTOCOL_VERSION, f.version());
    assertEquals(0x04, f.kind());
    assertEquals(7, f.requestId());
    Frame e = new FrameError(ErrorCode.UNKNOWN_KIND, "k", 9, false).toFrame();
    assertEquals(0x80, e.kind());
    assertEquals("000b" + "00016b" + "0000" + "00000000", HEX.formatHex(e.payload()));
  }

  // ---- malformed payloads: each names the field

  private static MalformedMessageException malformedRequest(Kind k, String hex) {
    return assertThrows(MalformedMessageException.class, () -> MessageCodec.decodeRequest(k, HEX.parseHex(hex)));
  }

  private static MalformedMessageException malformedResponse(Kind k, String hex) {
    return assertThrows(MalformedMessageException.class, () -> MessageCodec.decodeResponse(k, HEX.parseHex(hex)));
  }

  @Test
  void malformedPayloadsNameTheField() {
    assertEquals("LIST_LIMITS.timeoutMillis", malformedRequest(Kind.LIST_LIMITS, "0000").field());
    assertEquals("LIST_LIMITS", malformedRequest(Kind.LIST_LIMITS, "000000000000").field());
    assertEquals("LIST_LIMITS.stale", malformedRequest(Kind.LIST_LIMITS, "0000000002").field());
    assertEquals("LIST_LIMITS.timeoutMillis", malformedRequest(Kind.LIST_LIMITS, "8000000000").field());
    // String length 5 with 1 byte left: checked before allocating.
    assertEquals("GET_LIMIT.tenant", malformedRequest(Kind.GET_LIMIT, "00000000" + "0005" + "74").field());
    // Invalid UTF-8 (lone continuation byte).
    MalformedMessageException utf = malformedRequest(Kind.GET_LIMIT, "00000000" + "000180" + "0000" + "00");
    assertEquals("GET_LIMIT.tenant", utf.field());
    assertTrue(utf.getMessage().contains("UTF-8"), utf.getMessage());
    // Credential declared 4 GiB - 1.
    assertEquals(
        "HELLO.credential",
        malformedRequest(Kind.HELLO, "00000000" + "01" + "00".repeat(16) + "ffffffff").field());
    // Huge list count with nothing behind it: rejected before allocating a list.
    assertEquals("LIST_LIMITS_REPLY.limits.count", malformedResponse(Kind.LIST_LIMITS, "0000" + "7fffffff").field());
    assertEquals("LIST_LEASES_REPLY.leases.count", malformedResponse(Kind.LIST_LEASES, "0000" + "00000001").field());
    // Unknown outcome code.
    MalformedMessageException oc = malformedResponse(Kind.RETURN_LEASE, "0000" + "63" + "0000" + "00".repeat(16) + "00");
    assertEquals("RETURN_LEASE_REPLY.outcome", oc.field());
    // Error body truncated.
    assertEquals("HELLO_REPLY.Error.retryAfterMillis", malformedResponse(Kind.HELLO, "0001" + "0000" + "0000" + "00").field());
    // Trailing byte after an error.
    assertEquals("HELLO_REPLY", malformedResponse(Kind.HELLO, "0001" + "0000" + "0000" + "00000000" + "00").field());
  }

  @Test
  void encodeRejectsUnrepresentableValues() {
    assertThrows(IllegalArgumentException.class, () -> MessageCodec.encodeRequest(-1, new Request.ClusterStatus()));
    assertThrows(
        IllegalArgumentException.class,
        () -> MessageCodec.encodeRequest(0, new Request.SetLimit(new Limit("t", "r", 1, 1, null, 1, 1, 1, Policy.FREE_CAPACITY, 0))));
    assertThrows(
        IllegalArgumentException.class,
        () -> MessageCodec.encodeRequest(0, new Request.GetLimit("x".repeat(70_000), "r", false)));
    assertThrows(
        IllegalArgumentException.class,
        () -> MessageCodec.encodeResponse(new Response.Error(ErrorCode.OK, "", "", 0)));
  }
}
