package dev.ration.protocol;

import dev.ration.wire.ErrorCode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Goal: the frame decoder turns every kind of bad input into a typed {@link FrameError} (never
 * an exception, never an allocation sized by a hostile length), and reassembles good frames
 * however the bytes are split.
 */
class FrameDecoderTest {
  private static final int MAX = 1024;

  private static EmbeddedChannel server() {
    return new EmbeddedChannel(FrameDecoder.forServer(MAX));
  }

  private static ByteBuf encode(Frame f) {
    ByteBuf b = Unpooled.buffer();
    FrameEncoder.writeTo(f, b, Frame.DEFAULT_MAX_FRAME_BYTES);
    return b;
  }

  private static ByteBuf hex(String h) {
    return Unpooled.wrappedBuffer(HexFormat.of().parseHex(h));
  }

  private static void assertSameFrame(Frame expected, Object actual) {
    Frame f = assertInstanceOf(Frame.class, actual);
    assertEquals(expected.version(), f.version());
    assertEquals(expected.kind(), f.kind());
    assertEquals(expected.requestId(), f.requestId());
    assertArrayEquals(expected.payload(), f.payload());
  }

  @Test
  void encoderWritesTheDocumentedLayout() {
    EmbeddedChannel ch = new EmbeddedChannel(new FrameEncoder());
    ch.writeOutbound(new Frame(1, 0x09, 0x0102L, new byte[] {0, 0, 0, 5}));
    ByteBuf out = ch.readOutbound();
    byte[] bytes = new byte[out.readableBytes()];
    out.readBytes(bytes);
    out.release();
    assertEquals("0000000e" + "01" + "09" + "0000000000000102" + "00000005", HexFormat.of().formatHex(bytes));
  }

  @Test
  void oversizedLengthPrefixIsFatalWithoutAllocation() {
    EmbeddedChannel ch = server();
    // Declares 2 GiB; only the header follows. The decoder must not wait for or allocate it.
    ch.writeInbound(hex("7fffffff" + "01" + "05" + "0000000000000007"));
    FrameError e = assertInstanceOf(FrameError.class, ch.readInbound());
    assertEquals(ErrorCode.FRAME_TOO_LARGE, e.code());
    assertTrue(e.fatal());
    assertEquals(7, e.requestId());
    assertTrue(e.message().contains("2147483647"), e.message());
    // Everything after is discarded, even a valid frame.
    ch.writeInbound(encode(MessageCodec.requestFrame(8, 0, new Request.ClusterStatus())));
    assertNull(ch.readInbound());
    assertFalse(ch.finish());
  }

  @Test
  void frameOfExactlyMaxIsAcceptedAndOneMoreIsNot() {
    EmbeddedChannel ch = server();
    Frame ok = new Frame(1, Kind.CLUSTER_STATUS.code(), 1, new byte[MAX - Frame.HEADER_BYTES]);
    ch.writeInbound(encode(ok));
    assertSameFrame(ok, ch.readInbound());
    Frame big = new Frame(1, Kind.CLUSTER_STATUS.code(), 2, new byte[MAX - Frame.HEADER_BYTES + 1]);
    ch.writeInbound(encode(big));
    FrameError e = assertInstanceOf(FrameError.class, ch.readInbound());
    assertEquals(ErrorCode.FRAME_TOO_LARGE, e.code());
    assertEquals(2, e.requestId());
    ch.finishAndReleaseAll();
  }

  @Test
  void truncatedFrameWaitsAndEmitsNothingOnClose() {
    EmbeddedChannel ch = server();
    ByteBuf whole = encode(MessageCodec.requestFrame(3, 0, new Request.ListLimits(false)));
    ch.writeInbound(whole.readRetainedSlice(whole.readableBytes() - 1));
    whole.release();
    assertNull(ch.readInbound());
    assertFalse(ch.finish(), "closing with a partial frame emits nothing");
    assertNull(ch.readInbound());
  }

  @Test
  void lengthBelowHeaderIsFatalMalformed() {
    EmbeddedChannel ch = server();
    ch.writeInbound(hex("00000009" + "01" + "01" + "00000000000000"));
    FrameError e = assertInstanceOf(FrameError.class, ch.readInbound());
    assertEquals(ErrorCode.MALFORMED, e.code());
    assertTrue(e.fatal());
    assertEquals(0, e.requestId());
    assertNull(ch.readInbound());
    ch.finishAndReleaseAll();
  }

  @Test
  void unknownVersionIsFatalAndNamesTheRequest() {
    EmbeddedChannel ch = server();
    ch.writeInbound(encode(new Frame(2, Kind.CLUSTER_STATUS.code(), 11, new byte[4])));
    FrameError e = assertInstanceOf(FrameError.class, ch.readInbound());
    assertEquals(ErrorCode.UNSUPPORTED_VERSION, e.code());
    assertTrue(e.fatal());
    assertEquals(11, e.requestId());
    ch.finishAndReleaseAll();
  }

  @Test
  void unknownKindIsNonFatalAndDecodingContinues() {
    EmbeddedChannel ch = server();
    ByteBuf both = Unpooled.buffer();
    FrameEncoder.writeTo(new Frame(1, 0x7e, 21, new byte[] {1, 2, 3}), both, MAX);
    // A response kind sent to a server is also unknown there.
    FrameEncoder.writeTo(new Frame(1, 0x81, 22, new byte[0]), both, MAX);
    Frame good = MessageCodec.requestFrame(23, 5, new Request.ListLimits(true));
    FrameEncoder.writeTo(good, both, MAX);
    ch.writeInbound(both);
    FrameError e = assertInstanceOf(FrameError.class, ch.readInbound());
    assertEquals(ErrorCode.UNKNOWN_KIND, e.code());
    assertFalse(e.fatal());
    assertEquals(21, e.requestId());
    FrameError e2 = assertInstanceOf(FrameError.class, ch.readInbound());
    assertEquals(22, e2.requestId());
    assertSameFrame(good, ch.readInbound());
    assertFalse(ch.finish());
  }

  @Test
  void garbageBytesAreFatal() {
    EmbeddedChannel ch = server();
    ch.writeInbound(Unpooled.copiedBuffer("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes()));
    FrameError e = assertInstanceOf(FrameError.class, ch.readInbound());
    assertEquals(ErrorCode.FRAME_TOO_LARGE, e.code());
    assertTrue(e.fatal());
    assertNull(ch.readInbound());
    ch.finishAndReleaseAll();
  }

  @Test
  void twoFramesInOneBuffer() {
    EmbeddedChannel ch = server();
    Frame a = MessageCodec.requestFrame(1, 10, new Request.GetLimit("t", "r", false));
    Frame b = MessageCodec.requestFrame(2, 20, new Request.ReturnLease(1, 2, 3));
    ByteBuf buf = Unpooled.buffer();
    FrameEncoder.writeTo(a, buf, MAX);
    FrameEncoder.writeTo(b, buf, MAX);
    ch.writeInbound(buf);
    assertSameFrame(a, ch.readInbound());
    assertSameFrame(b, ch.readInbound());
    assertNull(ch.readInbound());
    assertFalse(ch.finish());
  }

  @Test
  void frameSplitIntoOneByteWrites() {
    EmbeddedChannel ch = server();
    Frame a = MessageCodec.requestFrame(99, 10, new Request.AcquireLease("t", "r", "h", 1, 2));
    ByteBuf buf = encode(a);
    int n = buf.readableBytes();
    for (int i = 0; i < n; i++) {
      assertNull(ch.readInbound(), "nothing before the last byte, at byte " + i);
      ch.writeInbound(buf.readRetainedSlice(1));
    }
    buf.release();
    assertSameFrame(a, ch.readInbound());
    assertFalse(ch.finish());
  }

  @Test
  void clientAcceptsResponseKindsAndTheBareErrorKind() {
    EmbeddedChannel ch = new EmbeddedChannel(FrameDecoder.forClient(MAX));
    Frame reply = MessageCodec.responseFrame(5, Kind.HELLO, new Response.HelloReply("n", 1, true, ""));
    Frame err = new FrameError(ErrorCode.UNKNOWN_KIND, "x", 6, false).toFrame();
    Frame req = MessageCodec.requestFrame(7, 0, new Request.ClusterStatus());
    ByteBuf buf = Unpooled.buffer();
    FrameEncoder.writeTo(reply, buf, MAX);
    FrameEncoder.writeTo(err, buf, MAX);
    FrameEncoder.writeTo(req, buf, MAX);
    ch.writeInbound(buf);
    assertSameFrame(reply, ch.readInbound());
    assertSameFrame(err, ch.readInbound());
    FrameError e = assertInstanceOf(FrameError.class, ch.readInbound());
    assertEquals(ErrorCode.UNKNOWN_KIND, e.code());
    assertEquals(7, e.requestId());
    assertFalse(ch.finish());
  }
}
