package dev.ration.protocol;

import dev.ration.wire.ErrorCode;

import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;
import dev.ration.wire.shape.Shape;
import java.util.HashMap;
import java.util.Map;

/**
 * Encodes and decodes frame payloads (the bytes after the 14-byte header); the server and the
 * client both use it. Stateless and thread-safe: every method is static.
 *
 * <p>Request payload = {@code u32 timeoutMillis | body}; response payload = {@code u16
 * errorCode | body}, where body is {@link Response.Error}'s fields when errorCode != 0, else the
 * kind's reply. Each body is the {@link Shape} its {@link Kind} names, so a message's field list
 * is declared once (in {@link LeaseMessages}, {@link TtlMessages} and {@link QuotaMessages})
 * for both directions. The TTL and quota bodies
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

  /**
   * Reply shapes by reply type, from the kind table (several kinds share a reply). Built when a
   * reply is first encoded (a server), so a client, which only decodes replies, builds only the
   * shapes of the kinds it uses.
   */
  private static final class ReplyShapes {
    static final Map<Class<?>, Shape<?>> BY_TYPE = new HashMap<>();

    static {
      for (Kind k : Kind.values()) {
        BY_TYPE.put(k.replyShape().type(), k.replyShape());
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
    write(w, request.kind().requestShape(), unwrap(request));
    return w.toByteArray();
  }

  public static DecodedRequest decodeRequest(Kind kind, byte[] payload) {
    ByteReader r = reader(payload, kind.name());
    long timeout = r.u32("timeoutMillis");
    if (timeout > Integer.MAX_VALUE) {
      throw new MalformedMessageException(
          kind.name() + ".timeoutMillis", "value " + timeout + " > " + Integer.MAX_VALUE);
    }
    Object body = kind.requestShape().read(r);
    r.end();
    Request request;
    if (body instanceof TtlRequest ttl) {
      request = new Request.Ttl(ttl);
    } else if (body instanceof QuotaRequest quota) {
      request = new Request.Quota(quota);
    } else {
      request = (Request) body;
    }
    return new DecodedRequest((int) timeout, request);
  }

  public static byte[] encodeResponse(Response response) {
    // A lease's or a reservation's view is 150-300 bytes: started at that size, the writer
    // does not grow three times on every answer.
    ByteWriter w = new ByteWriter(256);
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
    Object body = unwrap(response);
    Shape<?> shape = ReplyShapes.BY_TYPE.get(body.getClass());
    if (shape == null) {
      throw new IllegalArgumentException("unknown message " + response);
    }
    write(w, shape, body);
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
    Object body = kind.replyShape().read(r);
    r.end();
    if (body instanceof TtlResponse ttl) {
      return new Response.Ttl(ttl);
    } else if (body instanceof QuotaResponse quota) {
      return new Response.Quota(quota);
    }
    return (Response) body;
  }

  /** The body a shape describes: the TTL and quota families travel inside a wrapper. */
  private static Object unwrap(Request request) {
    if (request instanceof Request.Ttl t) {
      return t.request();
    } else if (request instanceof Request.Quota q) {
      return q.request();
    }
    return request;
  }

  private static Object unwrap(Response response) {
    if (response instanceof Response.Ttl t) {
      return t.response();
    } else if (response instanceof Response.Quota q) {
      return q.response();
    }
    return response;
  }

  @SuppressWarnings("unchecked")
  private static <T extends Record> void write(ByteWriter w, Shape<T> shape, Object value) {
    shape.write(w, (T) value);
  }
}
