package dev.ration.client.protocol;

import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;
import dev.ration.wire.shape.Shape;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * Encodes and decodes frame payloads (the bytes after the 14-byte header); the server and the
 * client both use it. Stateless and thread-safe: every method is static.
 *
 * <p>Request payload = {@code u32 timeoutMillis | body}; response payload = {@code u16
 * errorCode | body}, where body is {@link Response.Error}'s fields when errorCode != 0, else the
 * kind's reply. Each body is the {@link Shape} its {@link Kind} names, so a message's field list
 * is declared once (in {@link LeaseMessages} and {@link TtlMessages}) for both directions; the
 * quota family is still written by hand in {@link QuotaMessages}. The TTL and quota bodies
 * travel wrapped ({@link Request.Ttl}, {@link Response.Ttl}, ...) so that the client API keeps
 * one request and one response type. See
 * docs/PROTOCOL.md.
 *
 * <p>Decoding never trusts a declared length: each is checked against the bytes that remain
 * before anything is allocated for it. Any payload that does not decode exactly (truncated,
 * trailing bytes, bad code, bad UTF-8) throws {@link MalformedMessageException} naming the field.
 */
public final class MessageCodec {
  /** Strings carry a u16 length. */
  public static final int STRING_BYTES_MAX = 0xFFFF;
  /** HELLO's reserved credential: generous for a token, small against the frame maximum. */
  public static final int CREDENTIAL_BYTES_MAX = 16 * 1024;

  // Smallest encoding of one list item, used to bound a declared count before allocating.
  static final int LIMIT_INFO_BYTES_MIN = LeaseMessages.LIMIT_STATUS.minBytes();
  static final int LEASE_INFO_BYTES_MIN = LeaseMessages.LEASE_VIEW.minBytes();
  static final int PEER_INFO_BYTES_MIN = LeaseMessages.PEER.minBytes();

  /** Reply shapes by reply type, from the kind table (several kinds share a reply). */
  private static final Map<Class<?>, Shape<?>> REPLY_SHAPES = new HashMap<>();

  static {
    for (Kind k : Kind.values()) {
      if (k.replyShape() != null) {
        REPLY_SHAPES.put(k.replyShape().type(), k.replyShape());
      }
    }
  }

  private MessageCodec() {}

  /** A reader whose failures are {@link MalformedMessageException}s naming {@code message.field}. */
  static ByteReader reader(byte[] payload, String message) {
    return ByteReader.naming(payload, message, MalformedMessageException::new);
  }

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

  public static byte[] encodeRequest(int timeoutMillis, Request request) {
    if (timeoutMillis < 0) {
      throw new IllegalArgumentException("timeoutMillis " + timeoutMillis + " < 0");
    }
    ByteWriter w = new ByteWriter(64);
    w.u32("timeoutMillis", timeoutMillis);
    if (request instanceof Request.Ttl t) {
      write(w, t.kind().requestShape(), t.request());
    } else if (request instanceof Request.Quota q) {
      QuotaMessages.encodeRequest(w, q.request());
    } else {
      write(w, request.kind().requestShape(), request);
    }
    return w.toByteArray();
  }

  public static DecodedRequest decodeRequest(Kind kind, byte[] payload) {
    ByteReader r = reader(payload, kind.name());
    long timeout = r.u32("timeoutMillis");
    if (timeout > Integer.MAX_VALUE) {
      throw new MalformedMessageException(
          kind.name() + ".timeoutMillis", "value " + timeout + " > " + Integer.MAX_VALUE);
    }
    Request request;
    Object body = kind.requestShape() == null ? null : kind.requestShape().read(r);
    if (body instanceof Request plain) {
      request = plain;
    } else if (body instanceof TtlRequest ttl) {
      request = new Request.Ttl(ttl);
    } else {
      request = new Request.Quota(QuotaMessages.decodeRequest(kind, r));
    }
    r.end();
    return new DecodedRequest((int) timeout, request);
  }

  public static byte[] encodeResponse(Response response) {
    ByteWriter w = new ByteWriter(64);
    if (response instanceof Response.Error e) {
      if (e.code() == null || e.code() == ErrorCode.OK) {
        throw new IllegalArgumentException("Response.Error needs a non-OK code, got " + e.code());
      }
      w.u16("Error.code", e.code().code());
      w.str("Error.message", e.message()).str("Error.leaderAddress", e.leaderAddress());
      w.i32(e.retryAfterMillis());
      return w.toByteArray();
    }
    w.u16("code", 0);
    if (response instanceof Response.Quota q) {
      QuotaMessages.encodeResponse(w, q.response());
    } else {
      Object body = response instanceof Response.Ttl t ? t.response() : response;
      Shape<?> shape = REPLY_SHAPES.get(body.getClass());
      if (shape == null) {
        throw new IllegalArgumentException("unknown message " + response);
      }
      write(w, shape, body);
    }
    return w.toByteArray();
  }

  /**
   * Decodes a response to a request of {@code kind}. A non-zero error code yields a {@link
   * Response.Error} whatever the kind; an error code this version does not know (a newer
   * server) becomes {@link ErrorCode#INTERNAL} with the number in the message.
   */
  public static Response decodeResponse(Kind kind, byte[] payload) {
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
    Response response;
    Object body = kind.replyShape() == null ? null : kind.replyShape().read(r);
    if (body instanceof Response plain) {
      response = plain;
    } else if (body instanceof TtlResponse ttl) {
      response = new Response.Ttl(ttl);
    } else {
      response = new Response.Quota(QuotaMessages.decodeResponse(kind, r));
    }
    r.end();
    return response;
  }

  @SuppressWarnings("unchecked")
  private static <T extends Record> void write(ByteWriter w, Shape<T> shape, Object value) {
    shape.write(w, (T) value);
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
}
