package dev.ration.protocol;

import dev.ration.wire.ErrorCode;

import dev.ration.wire.Mode;
import dev.ration.wire.Outcome;
import dev.ration.wire.Policy;
import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.lease.LimitStatus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ration.testkit.Alphabet;
import dev.ration.testkit.Gen;
import dev.ration.testkit.Property;
import dev.ration.testkit.Rng;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Goal: every message survives encode then decode unchanged, for arbitrary field values
 * (including non-ASCII strings, extreme longs and empty lists), and any truncation of a valid
 * payload is rejected as malformed rather than misread.
 */
class MessageCodecPropertyTest {

  /** Up to 40 characters from the whole Basic Multilingual Plane except surrogates. */
  static String string(Rng r) {
    return r.string(40, Alphabet.BMP_TEXT);
  }

  /** Any long; half of them one of the four a codec most often gets wrong. */
  static long anyLong(Rng r) {
    return r.bool() ? r.oneOf(0L, -1L, Long.MAX_VALUE, Long.MIN_VALUE) : r.anyLong();
  }

  static int u8(Rng r) {
    return r.between(0, 255);
  }

  static LimitStatus limitInfo(Rng r) {
    return new LimitStatus(new Limit(string(r), string(r), anyLong(r), anyLong(r),
        r.oneOf(Mode.class), anyLong(r), anyLong(r), anyLong(r), r.oneOf(Policy.class),
        anyLong(r)), anyLong(r), anyLong(r), anyLong(r), anyLong(r),
        anyLong(r), r.anyInt(), r.anyInt(), anyLong(r), anyLong(r), anyLong(r), anyLong(r),
        anyLong(r));
  }

  static LeaseView leaseInfo(Rng r) {
    return new LeaseView(anyLong(r), string(r), string(r), string(r), anyLong(r),
        anyLong(r), anyLong(r), anyLong(r), anyLong(r), anyLong(r), anyLong(r), anyLong(r),
        anyLong(r), r.oneOf(Mode.class), anyLong(r), anyLong(r));
  }

  static final Gen<LimitStatus> LIMIT_INFO = MessageCodecPropertyTest::limitInfo;
  static final Gen<LeaseView> LEASE_INFO = MessageCodecPropertyTest::leaseInfo;

  /** One of the nine request kinds of the lease protocol, each equally likely. */
  static final Gen<Request> REQUESTS = Gen.oneOf(
      r -> new Request.Hello(u8(r), anyLong(r), anyLong(r), r.bytes(64)),
      r -> new Request.SetLimit(new Limit(string(r), string(r), anyLong(r), anyLong(r), r.oneOf(Mode.class),
          anyLong(r), anyLong(r), anyLong(r), r.oneOf(Policy.class), anyLong(r))),
      r -> new Request.GetLimit(string(r), string(r), r.bool()),
      r -> new Request.ListLimits(r.bool()),
      r -> new Request.AcquireLease(string(r), string(r), string(r), anyLong(r), anyLong(r)),
      r -> new Request.RenewLease(anyLong(r), anyLong(r), anyLong(r), anyLong(r), anyLong(r),
          anyLong(r), anyLong(r)),
      r -> new Request.ReturnLease(anyLong(r), anyLong(r), anyLong(r)),
      r -> new Request.ListLeases(string(r), string(r), r.bool()),
      r -> new Request.ClusterStatus());

  /** A response together with the kind of request it answers. */
  record Answer(Kind kind, Response response) {}

  static final List<ErrorCode> ERRORS =
      Arrays.stream(ErrorCode.values()).filter(e -> e != ErrorCode.OK).toList();

  /** An error for any kind, or one of the lease protocol's replies, each equally likely. */
  static final Gen<Answer> RESPONSES = Gen.oneOf(
      r -> new Answer(r.oneOf(Kind.class),
          new Response.Error(r.oneOf(ERRORS), string(r), string(r), r.anyInt())),
      r -> new Answer(Kind.HELLO, new Response.HelloReply(string(r), u8(r), r.bool(), string(r))),
      r -> new Answer(Kind.SET_LIMIT, new Response.SetLimitReply(r.oneOf(Outcome.class), string(r),
          anyLong(r), LIMIT_INFO.orNull(0.3).next(r))),
      r -> new Answer(Kind.GET_LIMIT, new Response.GetLimitReply(r.bool(), LIMIT_INFO.orNull(0.3).next(r))),
      r -> new Answer(Kind.LIST_LIMITS, new Response.LimitList(LIMIT_INFO.list(0, 4).next(r))),
      r -> new Answer(r.oneOf(Kind.ACQUIRE_LEASE, Kind.RENEW_LEASE), new Response.LeaseReply(
          r.oneOf(Outcome.class), string(r), anyLong(r), anyLong(r), LEASE_INFO.orNull(0.3).next(r),
          anyLong(r))),
      r -> new Answer(Kind.RETURN_LEASE, new Response.ReturnReply(r.oneOf(Outcome.class), string(r),
          anyLong(r), anyLong(r), r.bool())),
      r -> new Answer(Kind.LIST_LEASES, new Response.LeaseList(LEASE_INFO.list(0, 4).next(r))),
      r -> new Answer(Kind.CLUSTER_STATUS, new Response.ClusterStatusReply(string(r), string(r),
          anyLong(r), anyLong(r), anyLong(r), string(r), string(r), anyLong(r), anyLong(r),
          r.list(0, 5, p -> new Response.PeerInfo(string(p), string(p), string(p), string(p))))));

  record TimedRequest(Request request, int timeoutMillis) {}

  @Test
  void requestsRoundTrip() {
    Gen<TimedRequest> cases = r -> new TimedRequest(REQUESTS.next(r), r.between(0, Integer.MAX_VALUE));
    Property.forAll(500, cases, c -> {
      Request request = c.request();
      byte[] bytes = MessageCodec.encodeRequest(c.timeoutMillis(), request);
      DecodedRequest d = MessageCodec.decodeRequest(request.kind(), bytes);
      assertEquals(c.timeoutMillis(), d.timeoutMillis());
      if (request instanceof Request.Hello h) {
        Request.Hello got = (Request.Hello) d.request();
        assertEquals(List.of(h.protocolVersion(), h.clientHigh(), h.clientLow()),
            List.of(got.protocolVersion(), got.clientHigh(), got.clientLow()));
        assertArrayEquals(h.credential(), got.credential());
      } else {
        assertEquals(request, d.request());
      }
    });
  }

  @Test
  void responsesRoundTrip() {
    Property.forAll(500, RESPONSES, answer -> {
      byte[] bytes = MessageCodec.encodeResponse(answer.response());
      assertEquals(answer.response(), MessageCodec.decodeResponse(answer.kind(), bytes));
    });
  }

  record Truncated<T>(T message, int cut) {}

  /** Every strict prefix of a valid payload is malformed: no field is silently defaulted. */
  @Test
  void truncatedResponsesAreMalformed() {
    Property.forAll(200, r -> new Truncated<>(RESPONSES.next(r), r.between(1, 10_000)), c -> {
      byte[] bytes = MessageCodec.encodeResponse(c.message().response());
      byte[] prefix = Arrays.copyOf(bytes, Math.max(0, bytes.length - c.cut()));
      assertThrows(MalformedMessageException.class,
          () -> MessageCodec.decodeResponse(c.message().kind(), prefix));
    });
  }

  @Test
  void truncatedRequestsAreMalformed() {
    Property.forAll(200, r -> new Truncated<>(REQUESTS.next(r), r.between(1, 10_000)), c -> {
      byte[] bytes = MessageCodec.encodeRequest(0, c.message());
      byte[] prefix = Arrays.copyOf(bytes, Math.max(0, bytes.length - c.cut()));
      assertThrows(MalformedMessageException.class,
          () -> MessageCodec.decodeRequest(c.message().kind(), prefix));
    });
  }

  record Junk(Kind kind, byte[] bytes) {
    @Override
    public String toString() {
      return "Junk[kind=" + kind + ", bytes=" + Arrays.toString(bytes) + "]";
    }
  }

  /** Random bytes never crash the decoder: they decode or are reported malformed. */
  @Test
  void randomBytesNeverCrash() {
    Property.forAll(1000, r -> new Junk(r.oneOf(Kind.class), r.bytes(200)), junk -> {
      try {
        MessageCodec.decodeResponse(junk.kind(), junk.bytes());
      } catch (MalformedMessageException expected) {
        // fine
      }
      try {
        MessageCodec.decodeRequest(junk.kind(), junk.bytes());
      } catch (MalformedMessageException expected) {
        // fine
      }
    });
  }
}
