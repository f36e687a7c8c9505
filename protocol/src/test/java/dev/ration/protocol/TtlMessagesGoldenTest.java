package dev.ration.protocol;

import dev.ration.wire.ChangeKind;
import dev.ration.wire.CapacityPolicy;

import dev.ration.wire.ttl.NamespaceView;

import dev.ration.wire.Outcome;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Goal: pin the wire encoding of every TTL kind (0x20–0x2F) byte for byte, and that decoding
 * the golden bytes gives back the same message (compared by re-encoding and by fields, since
 * byte[] components compare by identity). A change here is a protocol change.
 */
class TtlMessagesGoldenTest {
  private static final HexFormat HEX = HexFormat.of();

  private static Request request(TtlRequest r, int timeoutMillis, String hex) throws Exception {
    byte[] bytes = MessageCodec.encodeRequest(timeoutMillis, new Request.Ttl(r));
    assertEquals(hex, HEX.formatHex(bytes), "encoding of " + r);
    DecodedRequest d = MessageCodec.decodeRequest(r.kind(), HEX.parseHex(hex));
    assertEquals(timeoutMillis, d.timeoutMillis());
    assertEquals(hex, HEX.formatHex(MessageCodec.encodeRequest(timeoutMillis, d.request())));
    return d.request();
  }

  private static Response response(Kind kind, TtlResponse r, String hex) throws Exception {
    byte[] bytes = MessageCodec.encodeResponse(new Response.Ttl(r));
    assertEquals(hex, HEX.formatHex(bytes), "encoding of " + r);
    Response decoded = MessageCodec.decodeResponse(kind, HEX.parseHex(hex));
    assertEquals(hex, HEX.formatHex(MessageCodec.encodeResponse(decoded)));
    return decoded;
  }

  @Test
  void kindCodes() {
    assertEquals(0x20, Kind.TTL_PUT.code());
    assertEquals(0x21, Kind.TTL_CAS.code());
    assertEquals(0x22, Kind.TTL_REFRESH.code());
    assertEquals(0x23, Kind.TTL_DELETE.code());
    assertEquals(0x24, Kind.TTL_GET.code());
    assertEquals(0x25, Kind.TTL_LIST.code());
    assertEquals(0x26, Kind.TTL_NAMESPACE_SET.code());
    assertEquals(0x27, Kind.TTL_NAMESPACE_GET.code());
    assertEquals(0x28, Kind.TTL_UPDATE.code());
    assertEquals(0x29, Kind.TTL_WATCH.code());
    assertEquals(20, Outcome.ENTRY_UNKNOWN.code());
    assertEquals(21, Outcome.NAMESPACE_FULL.code());
  }

  @Test
  void putAndCas() throws Exception {
    Request put = request(new TtlRequest.Put("n", "k", new byte[] {1, 2}, 1000), 250,
        "000000fa" + "00016e" + "00016b" + "00000002" + "0102" + "00000000000003e8");
    TtlRequest.Put p = (TtlRequest.Put) ((Request.Ttl) put).request();
    assertEquals("n", p.namespace());
    assertEquals("k", p.key());
    assertArrayEquals(new byte[] {1, 2}, p.value());
    assertEquals(1000, p.ttlMillis());
    request(new TtlRequest.Put("n", "k", new byte[0], -1), 1,
        "00000001" + "00016e" + "00016b" + "00000000" + "ffffffffffffffff");
    request(new TtlRequest.CompareAndSet("n", "k", 7, new byte[] {(byte) 0xff}, 0), 2,
        "00000002" + "00016e" + "00016b" + "0000000000000007" + "00000001" + "ff"
            + "0000000000000000");
    TtlRequest.Update u = (TtlRequest.Update) ((Request.Ttl) request(
        new TtlRequest.Update("n", "k", new byte[] {3}, 9), 5,
        "00000005" + "00016e" + "00016b" + "00000001" + "03" + "0000000000000009")).request();
    assertArrayEquals(new byte[] {3}, u.value());
    assertEquals(9, u.expectedVersion());
  }

  @Test
  void refreshDeleteGetListNamespaces() throws Exception {
    assertEquals(new Request.Ttl(new TtlRequest.Refresh("n", "k", 500, 3)),
        request(new TtlRequest.Refresh("n", "k", 500, 3), 3,
            "00000003" + "00016e" + "00016b" + "00000000000001f4" + "0000000000000003"));
    assertEquals(new Request.Ttl(new TtlRequest.Delete("n", "k", 0)),
        request(new TtlRequest.Delete("n", "k", 0), 4,
            "00000004" + "00016e" + "00016b" + "0000000000000000"));
    assertEquals(new Request.Ttl(new TtlRequest.Get("n", "é", true)),
        request(new TtlRequest.Get("n", "é", true), 5, "00000005" + "00016e" + "0002c3a9" + "01"));
    assertEquals(new Request.Ttl(new TtlRequest.List("n", "a/", 100, false)),
        request(new TtlRequest.List("n", "a/", 100, false), 6,
            "00000006" + "00016e" + "0002612f" + "00000064" + "00"));
    assertEquals(new Request.Ttl(new TtlRequest.SetNamespace("n", 10, 4096, CapacityPolicy.EVICT_SOONEST_EXPIRING)),
        request(new TtlRequest.SetNamespace("n", 10, 4096, CapacityPolicy.EVICT_SOONEST_EXPIRING), 7,
            "00000007" + "00016e" + "000000000000000a" + "0000000000001000" + "02"));
    assertEquals(new Request.Ttl(new TtlRequest.GetNamespaces("", false)),
        request(new TtlRequest.GetNamespaces("", false), 8, "00000008" + "0000" + "00"));
  }

  @Test
  void writeAndDeleteReplies() throws Exception {
    assertEquals(new Response.Ttl(new TtlResponse.WriteReply(Outcome.SUCCESS, "", 0, 9, 2000)),
        response(Kind.TTL_PUT, new TtlResponse.WriteReply(Outcome.SUCCESS, "", 0, 9, 2000),
            "0000" + "00" + "0000" + "0000000000000000" + "0000000000000009"
                + "00000000000007d0"));
    response(Kind.TTL_CAS, new TtlResponse.WriteReply(Outcome.VERSION_MISMATCH, "x", 4, 0, 0),
        "0000" + "05" + "000178" + "0000000000000004" + "0000000000000000" + "0000000000000000");
    response(Kind.TTL_REFRESH, new TtlResponse.WriteReply(Outcome.ENTRY_UNKNOWN, "", 0, 0, 0),
        "0000" + "14" + "0000" + "0000000000000000" + "0000000000000000" + "0000000000000000");
    assertEquals(new Response.Ttl(new TtlResponse.DeleteReply(Outcome.SUCCESS, "", 0, 9, true)),
        response(Kind.TTL_DELETE, new TtlResponse.DeleteReply(Outcome.SUCCESS, "", 0, 9, true),
            "0000" + "00" + "0000" + "0000000000000000" + "0000000000000009" + "01"));
  }

  @Test
  void getAndListReplies() throws Exception {
    String entry = "00016e" + "00016b" + "00000001" + "61" + "0000000000000009"
        + "7fffffffffffffff";
    Response got = response(Kind.TTL_GET, new TtlResponse.GetReply(true,
        new TtlResponse.EntryInfo("n", "k", new byte[] {'a'}, 9, Long.MAX_VALUE), 1500),
        "0000" + "01" + entry + "00000000000005dc");
    TtlResponse.GetReply g = (TtlResponse.GetReply) ((Response.Ttl) got).response();
    assertArrayEquals(new byte[] {'a'}, g.entry().value());
    assertEquals(Long.MAX_VALUE, g.entry().expiresAtMillis());
    assertEquals(new Response.Ttl(new TtlResponse.GetReply(false, null, 7)),
        response(Kind.TTL_GET, new TtlResponse.GetReply(false, null, 7),
            "0000" + "00" + "0000000000000007"));
    response(Kind.TTL_LIST, new TtlResponse.ListReply(List.of(
            new TtlResponse.EntryInfo("n", "k", new byte[] {'a'}, 9, Long.MAX_VALUE)), true, 8),
        "0000" + "00000001" + entry + "01" + "0000000000000008");
  }

  @Test
  void namespaceReplies() throws Exception {
    NamespaceView n = new NamespaceView("n", 10, 4096, CapacityPolicy.REJECT, 2, 30, 3, 4);
    String info = "00016e" + "000000000000000a" + "0000000000001000" + "01" + "0000000000000002"
        + "000000000000001e" + "0000000000000003" + "0000000000000004";
    assertEquals(new Response.Ttl(new TtlResponse.NamespaceReply(Outcome.SUCCESS, "", n)),
        response(Kind.TTL_NAMESPACE_SET, new TtlResponse.NamespaceReply(Outcome.SUCCESS, "", n),
            "0000" + "00" + "0000" + "01" + info));
    assertEquals(new Response.Ttl(new TtlResponse.NamespaceList(List.of(n))),
        response(Kind.TTL_NAMESPACE_GET, new TtlResponse.NamespaceList(List.of(n)),
            "0000" + "00000001" + info));
  }

  @Test
  void hostileLengthsAreRefusedBeforeAllocating() {
    // a value declared at 64 KiB + 1
    assertThrows(MalformedMessageException.class, () -> MessageCodec.decodeRequest(Kind.TTL_PUT,
        HEX.parseHex("00000001" + "00016e" + "00016b" + "00010001")));
    // a list declaring 2^32-1 entries
    assertThrows(MalformedMessageException.class, () -> MessageCodec.decodeResponse(Kind.TTL_LIST,
        HEX.parseHex("0000" + "ffffffff")));
  }

  @Test
  void watchRequestAndReply() throws Exception {
    TtlRequest.Watch w = new TtlRequest.Watch("n", 41, 1000, List.of(new TtlRequest.WatchKey("k")), true);
    assertEquals(new Request.Ttl(w), request(w, 9,
        "00000009" + "00016e" + "0000000000000029" + "00000000000003e8" + "00000001" + "00016b"
            + "01"));
    request(new TtlRequest.Watch("n", -1, 0, List.of(), false), 1,
        "00000001" + "00016e" + "ffffffffffffffff" + "0000000000000000" + "00000000" + "00");
    Response r = response(Kind.TTL_WATCH, new TtlResponse.WatchReply(List.of(
            new TtlResponse.ChangeInfo(42, ChangeKind.PUT, "k", 9, 2000, new byte[] {'a'}),
            new TtlResponse.ChangeInfo(43, ChangeKind.EXPIRE, "k", 9, 2000, new byte[0])),
            43, false, false, List.of(), 1500, false),
        "0000" + "00000002"
            + "000000000000002a" + "01" + "00016b" + "0000000000000009" + "00000000000007d0"
            + "00000001" + "61"
            + "000000000000002b" + "04" + "00016b" + "0000000000000009" + "00000000000007d0"
            + "00000000"
            + "000000000000002b" + "00" + "00" + "00000000" + "00000000000005dc" + "00");
    TtlResponse.WatchReply reply = (TtlResponse.WatchReply) ((Response.Ttl) r).response();
    assertEquals(ChangeKind.EXPIRE, reply.changes().get(1).kind());
    assertArrayEquals(new byte[] {'a'}, reply.changes().get(0).value());
    String entry = "00016e" + "00016b" + "00000001" + "61" + "0000000000000009" + "7fffffffffffffff";
    response(Kind.TTL_WATCH, new TtlResponse.WatchReply(List.of(), 50, true, false, List.of(
            new TtlResponse.EntryInfo("n", "k", new byte[] {'a'}, 9, Long.MAX_VALUE)), 7, true),
        "0000" + "00000000" + "0000000000000032" + "01" + "00" + "00000001" + entry
            + "0000000000000007" + "01");
  }
}
