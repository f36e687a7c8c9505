package dev.ration.client.protocol;

import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import dev.ration.wire.lease.Limit;

import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.lease.LimitStatus;

import dev.ration.wire.Outcome;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Goal: every message survives encode then decode unchanged, for arbitrary field values
 * (including non-ASCII strings, extreme longs and empty lists), and any truncation of a valid
 * payload is rejected as malformed rather than misread.
 */
class MessageCodecPropertyTest {

  static Arbitrary<String> strings() {
    return Arbitraries.strings().all().excludeChars(invalidSurrogates()).ofMaxLength(40);
  }

  private static char[] invalidSurrogates() {
    char[] cs = new char[0xE000 - 0xD800];
    for (int i = 0; i < cs.length; i++) {
      cs[i] = (char) (0xD800 + i);
    }
    return cs;
  }

  static Arbitrary<Long> longs() {
    return Arbitraries.oneOf(Arbitraries.longs(), Arbitraries.of(0L, -1L, Long.MAX_VALUE, Long.MIN_VALUE));
  }

  static Arbitrary<Integer> u8() {
    return Arbitraries.integers().between(0, 255);
  }

  static Arbitrary<Outcome> outcomes() {
    return Arbitraries.of(Outcome.class);
  }

  static Arbitrary<LimitStatus> limitInfo() {
    return Combinators.combine(
            Combinators.combine(strings(), strings(), longs(), longs(), Arbitraries.of(Mode.class), longs(), longs(), longs())
                .as((a, b, c, d, e, f, g, h) -> new Object[] {a, b, c, d, e, f, g, h}),
            Combinators.combine(Arbitraries.of(Policy.class), longs(), longs(), longs(), longs(), longs(), longs(), Arbitraries.integers())
                .as((a, b, c, d, e, f, g, h) -> new Object[] {a, b, c, d, e, f, g, h}),
            Combinators.combine(Arbitraries.integers(), longs(), longs(), longs(), longs(), longs())
                .as((a, b, c, d, e, f) -> new Object[] {a, b, c, d, e, f}))
        .as(
            (x, y, z) ->
                new LimitStatus(
                    new Limit((String) x[0], (String) x[1], (Long) x[2], (Long) x[3], (Mode) x[4],
                    (Long) x[5], (Long) x[6], (Long) x[7], (Policy) y[0], (Long) y[1]),
                    (Long) y[2], (Long) y[3], (Long) y[4], (Long) y[5], (Long) y[6],
                    (Integer) y[7], (Integer) z[0], (Long) z[1], (Long) z[2], (Long) z[3],
                    (Long) z[4], (Long) z[5]));
  }

  static Arbitrary<LeaseView> leaseInfo() {
    return Combinators.combine(
            Combinators.combine(longs(), strings(), strings(), strings(), longs(), longs(), longs(), longs())
                .as((a, b, c, d, e, f, g, h) -> new Object[] {a, b, c, d, e, f, g, h}),
            Combinators.combine(longs(), longs(), longs(), longs(), longs(), Arbitraries.of(Mode.class), longs(), longs())
                .as((a, b, c, d, e, f, g, h) -> new Object[] {a, b, c, d, e, f, g, h}))
        .as(
            (x, y) ->
                new LeaseView(
                    (Long) x[0], (String) x[1], (String) x[2], (String) x[3], (Long) x[4],
                    (Long) x[5], (Long) x[6], (Long) x[7], (Long) y[0], (Long) y[1],
                    (Long) y[2], (Long) y[3], (Long) y[4], (Mode) y[5], (Long) y[6],
                    (Long) y[7]));
  }

  @Provide
  Arbitrary<Request> requests() {
    return Arbitraries.oneOf(
        Combinators.combine(u8(), longs(), longs(), Arbitraries.bytes().array(byte[].class).ofMaxSize(64))
            .as(Request.Hello::new),
        Combinators.combine(
                Combinators.combine(strings(), strings(), longs(), longs(), Arbitraries.of(Mode.class)).as((a, b, c, d, e) -> new Object[] {a, b, c, d, e}),
                Combinators.combine(longs(), longs(), longs(), Arbitraries.of(Policy.class), longs()).as((a, b, c, d, e) -> new Object[] {a, b, c, d, e}))
            .as((x, y) -> new Request.SetLimit((String) x[0], (String) x[1], (Long) x[2], (Long) x[3], (Mode) x[4], (Long) y[0], (Long) y[1], (Long) y[2], (Policy) y[3], (Long) y[4])),
        Combinators.combine(strings(), strings(), Arbitraries.of(true, false)).as(Request.GetLimit::new),
        Arbitraries.of(true, false).map(Request.ListLimits::new),
        Combinators.combine(strings(), strings(), strings(), longs(), longs()).as(Request.AcquireLease::new),
        Combinators.combine(longs(), longs(), longs(), longs(), longs(), longs(), longs()).as(Request.RenewLease::new),
        Combinators.combine(longs(), longs(), longs()).as(Request.ReturnLease::new),
        Combinators.combine(strings(), strings(), Arbitraries.of(true, false)).as(Request.ListLeases::new),
        Arbitraries.just(new Request.ClusterStatus()));
  }

  /** A response together with the kind of request it answers. */
  record Answer(Kind kind, Response response) {}

  @Provide
  Arbitrary<Answer> responses() {
    Arbitrary<ErrorCode> errors = Arbitraries.of(ErrorCode.class).filter(e -> e != ErrorCode.OK);
    return Arbitraries.oneOf(
        Combinators.combine(Arbitraries.of(Kind.class), errors, strings(), strings(), Arbitraries.integers())
            .as((k, e, m, l, r) -> new Answer(k, new Response.Error(e, m, l, r))),
        Combinators.combine(strings(), u8(), Arbitraries.of(true, false), strings())
            .as((a, b, c, d) -> new Answer(Kind.HELLO, new Response.HelloReply(a, b, c, d))),
        Combinators.combine(outcomes(), strings(), longs(), limitInfo().injectNull(0.3))
            .as((a, b, c, d) -> new Answer(Kind.SET_LIMIT, new Response.SetLimitReply(a, b, c, d))),
        Combinators.combine(Arbitraries.of(true, false), limitInfo().injectNull(0.3))
            .as((a, b) -> new Answer(Kind.GET_LIMIT, new Response.GetLimitReply(a, b))),
        limitInfo().list().ofMaxSize(4).map(l -> new Answer(Kind.LIST_LIMITS, new Response.LimitList(l))),
        Combinators.combine(Arbitraries.of(Kind.ACQUIRE_LEASE, Kind.RENEW_LEASE), outcomes(), strings(), longs(), longs(), leaseInfo().injectNull(0.3), longs())
            .as((k, a, b, c, d, e, f) -> new Answer(k, new Response.LeaseReply(a, b, c, d, e, f))),
        Combinators.combine(outcomes(), strings(), longs(), longs(), Arbitraries.of(true, false))
            .as((a, b, c, d, e) -> new Answer(Kind.RETURN_LEASE, new Response.ReturnReply(a, b, c, d, e))),
        leaseInfo().list().ofMaxSize(4).map(l -> new Answer(Kind.LIST_LEASES, new Response.LeaseList(l))),
        Combinators.combine(
                Combinators.combine(strings(), strings(), longs(), longs(), longs()).as((a, b, c, d, e) -> new Object[] {a, b, c, d, e}),
                Combinators.combine(strings(), strings(), longs(), longs()).as((a, b, c, d) -> new Object[] {a, b, c, d}),
                Combinators.combine(strings(), strings(), strings(), strings()).as(Response.PeerInfo::new).list().ofMaxSize(5))
            .as((x, y, peers) -> new Answer(Kind.CLUSTER_STATUS, new Response.ClusterStatusReply((String) x[0], (String) x[1], (Long) x[2], (Long) x[3], (Long) x[4], (String) y[0], (String) y[1], (Long) y[2], (Long) y[3], peers))));
  }

  @Property(tries = 500)
  void requestsRoundTrip(@ForAll("requests") Request request, @ForAll @IntRange(min = 0) int timeoutMillis)
      throws Exception {
    byte[] bytes = MessageCodec.encodeRequest(timeoutMillis, request);
    DecodedRequest d = MessageCodec.decodeRequest(request.kind(), bytes);
    assertEquals(timeoutMillis, d.timeoutMillis());
    if (request instanceof Request.Hello h) {
      Request.Hello got = (Request.Hello) d.request();
      assertEquals(List.of(h.protocolVersion(), h.clientHigh(), h.clientLow()), List.of(got.protocolVersion(), got.clientHigh(), got.clientLow()));
      assertArrayEquals(h.credential(), got.credential());
    } else {
      assertEquals(request, d.request());
    }
  }

  @Property(tries = 500)
  void responsesRoundTrip(@ForAll("responses") Answer answer) throws Exception {
    byte[] bytes = MessageCodec.encodeResponse(answer.response());
    assertEquals(answer.response(), MessageCodec.decodeResponse(answer.kind(), bytes));
  }

  /** Every strict prefix of a valid payload is malformed: no field is silently defaulted. */
  @Property(tries = 200)
  void truncatedResponsesAreMalformed(@ForAll("responses") Answer answer, @ForAll @IntRange(min = 1, max = 10_000) int cut) {
    byte[] bytes = MessageCodec.encodeResponse(answer.response());
    byte[] prefix = Arrays.copyOf(bytes, Math.max(0, bytes.length - cut));
    org.junit.jupiter.api.Assertions.assertThrows(
        MalformedMessageException.class, () -> MessageCodec.decodeResponse(answer.kind(), prefix));
  }

  @Property(tries = 200)
  void truncatedRequestsAreMalformed(@ForAll("requests") Request request, @ForAll @IntRange(min = 1, max = 10_000) int cut) {
    byte[] bytes = MessageCodec.encodeRequest(0, request);
    byte[] prefix = Arrays.copyOf(bytes, Math.max(0, bytes.length - cut));
    org.junit.jupiter.api.Assertions.assertThrows(
        MalformedMessageException.class, () -> MessageCodec.decodeRequest(request.kind(), prefix));
  }

  /** Random bytes never crash the decoder: they decode or are reported malformed. */
  @Property(tries = 1000)
  void randomBytesNeverCrash(@ForAll("kinds") Kind kind, @ForAll("junk") byte[] junk) {
    try {
      MessageCodec.decodeResponse(kind, junk);
    } catch (MalformedMessageException expected) {
      // fine
    }
    try {
      MessageCodec.decodeRequest(kind, junk);
    } catch (MalformedMessageException expected) {
      // fine
    }
  }

  @Provide
  Arbitrary<Kind> kinds() {
    return Arbitraries.of(Kind.class);
  }

  @Provide
  Arbitrary<byte[]> junk() {
    return Arbitraries.bytes().array(byte[].class).ofMaxSize(200);
  }
}
