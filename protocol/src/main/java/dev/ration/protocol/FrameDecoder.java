package dev.ration.protocol;

import dev.ration.wire.ErrorCode;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Splits a TCP byte stream into {@link Frame}s: {@code u32 length | u8 version | u8 kind | u64
 * requestId | payload}, big-endian, {@code length} counting every byte after itself.
 *
 * <p>Bad input never throws: it becomes a {@link FrameError} emitted downstream.
 *
 * <ul>
 *   <li>{@code length < 10} (no room for the header): MALFORMED, fatal, request id unknown.
 *   <li>{@code length > maxFrameBytes} (on a server before HELLO, {@link #HELLO_FRAME_BYTES_MAX}):
 *       FRAME_TOO_LARGE, fatal. Checked on the length prefix
 *       before a single payload byte is buffered or allocated. The decoder waits for the 14-byte
 *       header so the error can name the request id.
 *   <li>version != {@link Frame#PROTOCOL_VERSION}: UNSUPPORTED_VERSION, fatal. The frame is
 *       intact, but a peer speaking another version will misread our answers too; we answer
 *       once and the endpoint closes.
 *   <li>unknown kind, or a kind of the wrong direction (a response kind sent to a server): the
 *       frame boundary is intact, so UNKNOWN_KIND, <em>non-fatal</em>, with the request id; the
 *       frame's bytes are skipped unread and decoding continues.
 * </ul>
 *
 * After a fatal error the decoder discards every later byte: a stream whose framing is broken
 * cannot be trusted. One instance per channel (not sharable); runs on the channel's event loop.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
  /** Which kind bytes this side accepts. */
  public enum Direction {
    /** A server reads requests: known kinds without the response bit. */
    REQUESTS,
    /** A client reads responses: known kinds with the response bit, or the bare error kind. */
    RESPONSES
  }

  public static final int LENGTH_BYTES = 4;
  private static final int PREFIX_AND_HEADER_BYTES = LENGTH_BYTES + Frame.HEADER_BYTES;

  private final int maxFrameBytes;
  private final Direction direction;
  private boolean discarding;
  /** The limit in force: {@link #maxFrameBytes}, or less until the peer has said who it is. */
  private int limitBytes;

  /**
   * @param maxFrameBytes the largest accepted {@code length} field (bytes after the prefix)
   */
  public FrameDecoder(int maxFrameBytes, Direction direction) {
    if (maxFrameBytes < Frame.HEADER_BYTES) {
      throw new IllegalArgumentException(
          "maxFrameBytes " + maxFrameBytes + " < header " + Frame.HEADER_BYTES);
    }
    if (direction == null) {
      throw new IllegalArgumentException("direction is null");
    }
    this.maxFrameBytes = maxFrameBytes;
    this.direction = direction;
    this.limitBytes = maxFrameBytes;
  }

  /**
   * The largest HELLO frame: its fixed fields and the largest credential. A server accepts no
   * larger frame before the HELLO, so a peer that has not authenticated holds at most this much
   * memory per connection however large the configured frame limit is.
   */
  public static final int HELLO_FRAME_BYTES_MAX = Frame.HEADER_BYTES + MessageCodec.CREDENTIAL_BYTES_MAX + 64;

  /** A server decoder that accepts at most a HELLO until {@link #admitFullFrames()}. */
  public static FrameDecoder forServerBeforeHello(int maxFrameBytes) {
    FrameDecoder d = forServer(maxFrameBytes);
    d.limitBytes = Math.min(maxFrameBytes, HELLO_FRAME_BYTES_MAX);
    return d;
  }

  /** The peer authenticated: frames up to the configured maximum from now on (event loop). */
  public void admitFullFrames() {
    limitBytes = maxFrameBytes;
  }

  public static FrameDecoder forServer(int maxFrameBytes) {
    return new FrameDecoder(maxFrameBytes, Direction.REQUESTS);
  }

  public static FrameDecoder forClient(int maxFrameBytes) {
    return new FrameDecoder(maxFrameBytes, Direction.RESPONSES);
  }

  /**
   * True while bytes of a frame that has not fully arrived are buffered (event loop only): the
   * endpoint closes a peer that starts a frame and then stalls.
   */
  public boolean holdsPartialFrame() {
    ByteBuf buffered = internalBuffer();
    return !discarding && buffered != null && buffered.isReadable();
  }

  /** True once a fatal error was emitted; every later byte is dropped. */
  public boolean discarding() {
    return discarding;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    // Bounded: each pass either consumes a whole frame, emits a fatal error, or returns.
    while (true) {
      if (discarding) {
        in.skipBytes(in.readableBytes());
        return;
      }
      if (in.readableBytes() < LENGTH_BYTES) {
        return;
      }
      int start = in.readerIndex();
      long length = in.getUnsignedInt(start);
      if (length < Frame.HEADER_BYTES) {
        fatal(
            in,
            out,
            new FrameError(
                ErrorCode.MALFORMED,
                "frame length " + length + " < header size " + Frame.HEADER_BYTES,
                0,
                true));
        return;
      }
      if (in.readableBytes() < PREFIX_AND_HEADER_BYTES) {
        return;
      }
      int version = in.getUnsignedByte(start + 4);
      int kindByte = in.getUnsignedByte(start + 5);
      long requestId = in.getLong(start + 6);
      if (length > limitBytes) {
        fatal(
            in,
            out,
            new FrameError(
                ErrorCode.FRAME_TOO_LARGE,
                "frame length " + length + " > max " + limitBytes
                    + (limitBytes < maxFrameBytes ? " before HELLO" : ""),
                requestId,
                true));
        return;
      }
      if (version != Frame.PROTOCOL_VERSION) {
        fatal(
            in,
            out,
            new FrameError(
                ErrorCode.UNSUPPORTED_VERSION,
                "protocol version " + version + " unsupported; this peer speaks "
                    + Frame.PROTOCOL_VERSION,
                requestId,
                true));
        return;
      }
      if (in.readableBytes() < LENGTH_BYTES + length) {
        return; // Wait for the rest; the length is already known to be within bounds.
      }
      if (!kindAccepted(kindByte)) {
        in.skipBytes(LENGTH_BYTES + (int) length);
        out.add(
            new FrameError(
                ErrorCode.UNKNOWN_KIND,
                String.format("unknown %s kind 0x%02x", direction == Direction.REQUESTS ? "request" : "response", kindByte),
                requestId,
                false));
        continue;
      }
      in.skipBytes(PREFIX_AND_HEADER_BYTES);
      byte[] payload = new byte[(int) length - Frame.HEADER_BYTES];
      in.readBytes(payload);
      out.add(new Frame(version, kindByte, requestId, payload));
    }
  }

  private boolean kindAccepted(int kindByte) {
    boolean response = (kindByte & Kind.RESPONSE_BIT) != 0;
    return switch (direction) {
      case REQUESTS -> !response && Kind.fromCode(kindByte) != null;
      case RESPONSES ->
          response && (kindByte == FrameError.ERROR_RESPONSE_KIND || Kind.fromCode(kindByte) != null);
    };
  }

  private void fatal(ByteBuf in, List<Object> out, FrameError error) {
    discarding = true;
    in.skipBytes(in.readableBytes());
    out.add(error);
  }
}
