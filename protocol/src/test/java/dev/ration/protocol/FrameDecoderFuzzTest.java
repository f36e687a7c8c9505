package dev.ration.protocol;

import dev.ration.wire.ErrorCode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Goal: whatever bytes arrive on a connection, however TCP splits them, the frame decoder emits
 * only {@link Frame}s and {@link FrameError}s (never an exception), loses or invents no byte,
 * and never allocates for a length it has not checked.
 *
 * <p>Checked against a small model of the framing rules: each emitted frame re-encodes to the
 * exact bytes at its place in the stream; a non-fatal error skips exactly one intact frame of a
 * kind this side does not accept; a fatal error names its cause (length below the header, above
 * the maximum, another version) and is the last thing emitted; without one, what is left over is
 * the beginning of a frame the decoder must still wait for. Feeding the stream in pieces gives
 * the same output as feeding it at once, and no buffer is asked for more than the bytes that
 * came in (rounded up as Netty grows buffers).
 *
 * <p>Input: byte 0 bit 0 picks the side (0 server: requests, 1 client: responses), bits 1-7 the
 * piece size (0: one write); bytes 1-2 (u16) are the maximum frame length above the 10-byte
 * header; the rest is the stream. Corpus: {@code FrameDecoderFuzzTestInputs/decode/}.
 */
class FrameDecoderFuzzTest {
  private static final int SETUP_BYTES = 3;

  @FuzzTest(maxDuration = "10s")
  void decode(byte[] input) {
    if (input.length < SETUP_BYTES) {
      return;
    }
    FrameDecoder.Direction direction =
        (input[0] & 1) == 0 ? FrameDecoder.Direction.REQUESTS : FrameDecoder.Direction.RESPONSES;
    int piece = (input[0] & 0xFF) >>> 1;
    int maxFrameBytes = Frame.HEADER_BYTES + (((input[1] & 0xFF) << 8) | (input[2] & 0xFF));
    byte[] stream = Arrays.copyOfRange(input, SETUP_BYTES, input.length);

    Run whole = run(direction, maxFrameBytes, stream, stream.length);
    checkAgainstModel(direction, maxFrameBytes, stream, whole);
    if (piece > 0 && piece < stream.length) {
      Run pieces = run(direction, maxFrameBytes, stream, piece);
      assertSameOutput(whole.out, pieces.out);
      assertEquals(whole.discarding, pieces.discarding);
    }
  }

  private record Run(List<Object> out, boolean discarding) {}

  /** Records the largest buffer the channel asks for, new or grown. */
  private static final class TrackingAllocator extends AbstractByteBufAllocator {
    int largest;

    TrackingAllocator() {
      super(false);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
      largest = Math.max(largest, initialCapacity);
      return new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
      return newHeapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public int calculateNewCapacity(int minNewCapacity, int maxCapacity) {
      int capacity = super.calculateNewCapacity(minNewCapacity, maxCapacity);
      largest = Math.max(largest, capacity);
      return capacity;
    }

    @Override
    public boolean isDirectBufferPooled() {
      return false;
    }
  }

  private static Run run(FrameDecoder.Direction direction, int maxFrameBytes, byte[] stream, int piece) {
    FrameDecoder decoder = new FrameDecoder(maxFrameBytes, direction);
    EmbeddedChannel channel = new EmbeddedChannel();
    TrackingAllocator allocator = new TrackingAllocator();
    channel.config().setAllocator(allocator);
    channel.pipeline().addLast(decoder);
    for (int from = 0; from < stream.length; from += piece) {
      int to = Math.min(stream.length, from + piece);
      channel.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOfRange(stream, from, to)));
    }
    List<Object> out = new ArrayList<>();
    for (Object o; (o = channel.readInbound()) != null; ) {
      out.add(o);
    }
    // Netty sizes a new cumulation buffer as the next power of two of the bytes it must hold
    // (at least 64); anything larger was sized by something other than the bytes received.
    int bound = Math.max(64, 2 * stream.length);
    assertTrue(allocator.largest <= bound,
        "allocated " + allocator.largest + " bytes for a stream of " + stream.length);
    boolean discarding = decoder.discarding();
    channel.finishAndReleaseAll();
    return new Run(out, discarding);
  }

  private static void checkAgainstModel(
      FrameDecoder.Direction direction, int maxFrameBytes, byte[] stream, Run run) {
    ByteBuffer in = ByteBuffer.wrap(stream);
    int offset = 0;
    boolean fatalSeen = false;
    for (Object o : run.out) {
      assertFalse(fatalSeen, "output after a fatal error: " + o);
      if (o instanceof Frame f) {
        assertEquals(Frame.PROTOCOL_VERSION, f.version());
        assertTrue(accepted(direction, f.kind()), "emitted a frame of kind " + f.kind());
        assertTrue(f.payload().length + Frame.HEADER_BYTES <= maxFrameBytes);
        ByteBuf encoded = Unpooled.buffer();
        FrameEncoder.writeTo(f, encoded, maxFrameBytes);
        byte[] bytes = new byte[encoded.readableBytes()];
        encoded.readBytes(bytes);
        assertTrue(offset + bytes.length <= stream.length, "frame past the end of the stream");
        assertArrayEquals(bytes, Arrays.copyOfRange(stream, offset, offset + bytes.length));
        offset += bytes.length;
        continue;
      }
      FrameError e = assertInstanceOf(FrameError.class, o);
      long length = Integer.toUnsignedLong(in.getInt(offset));
      if (!e.fatal()) {
        assertEquals(ErrorCode.UNKNOWN_KIND, e.code());
        assertTrue(length >= Frame.HEADER_BYTES && length <= maxFrameBytes);
        assertEquals(Frame.PROTOCOL_VERSION, stream[offset + 4] & 0xFF);
        assertFalse(accepted(direction, stream[offset + 5] & 0xFF));
        assertEquals(in.getLong(offset + 6), e.requestId());
        offset += FrameDecoder.LENGTH_BYTES + (int) length;
        continue;
      }
      fatalSeen = true;
      if (length < Frame.HEADER_BYTES) {
        assertEquals(ErrorCode.MALFORMED, e.code());
        assertEquals(0, e.requestId());
      } else {
        assertEquals(in.getLong(offset + 6), e.requestId());
        if (length > maxFrameBytes) {
          assertEquals(ErrorCode.FRAME_TOO_LARGE, e.code());
        } else {
          assertEquals(ErrorCode.UNSUPPORTED_VERSION, e.code());
          assertTrue((stream[offset + 4] & 0xFF) != Frame.PROTOCOL_VERSION);
        }
      }
    }
    assertEquals(fatalSeen, run.discarding);
    if (fatalSeen) {
      return;
    }
    // No fatal error: what is left must be a frame the decoder is right to wait for.
    int left = stream.length - offset;
    if (left < FrameDecoder.LENGTH_BYTES) {
      return;
    }
    long length = Integer.toUnsignedLong(in.getInt(offset));
    if (length < Frame.HEADER_BYTES) {
      fail("length " + length + " below the header was not reported");
    }
    if (left < FrameDecoder.LENGTH_BYTES + Frame.HEADER_BYTES) {
      return;
    }
    assertTrue(length <= maxFrameBytes, "length " + length + " over the maximum was not reported");
    assertEquals(Frame.PROTOCOL_VERSION, stream[offset + 4] & 0xFF, "bad version not reported");
    assertTrue(left < FrameDecoder.LENGTH_BYTES + length, "a complete frame was not emitted");
  }

  private static boolean accepted(FrameDecoder.Direction direction, int kindByte) {
    boolean response = (kindByte & Kind.RESPONSE_BIT) != 0;
    return switch (direction) {
      case REQUESTS -> !response && Kind.fromCode(kindByte) != null;
      case RESPONSES -> response
          && (kindByte == FrameError.ERROR_RESPONSE_KIND || Kind.fromCode(kindByte) != null);
    };
  }

  private static void assertSameOutput(List<Object> expected, List<Object> actual) {
    assertEquals(expected.size(), actual.size(), "pieces changed the number of outputs");
    for (int i = 0; i < expected.size(); i++) {
      if (expected.get(i) instanceof Frame e) {
        Frame a = assertInstanceOf(Frame.class, actual.get(i));
        assertEquals(e.version(), a.version());
        assertEquals(e.kind(), a.kind());
        assertEquals(e.requestId(), a.requestId());
        assertArrayEquals(e.payload(), a.payload());
      } else {
        assertEquals(expected.get(i), actual.get(i));
      }
    }
  }
}
