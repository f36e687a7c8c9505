package dev.ration.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.EncoderException;
import io.netty.handler.codec.MessageToByteEncoder;

/**
 * Writes a {@link Frame} as {@code u32 length | u8 version | u8 kind | u64 requestId | payload}.
 * Stateless and sharable. A frame larger than {@code maxFrameBytes} is a bug of the sender (the
 * client checks sizes before sending; the server bounds its replies) and fails the write.
 */
@ChannelHandler.Sharable
public final class FrameEncoder extends MessageToByteEncoder<Frame> {
  private final int maxFrameBytes;

  public FrameEncoder() {
    this(Frame.DEFAULT_MAX_FRAME_BYTES);
  }

  public FrameEncoder(int maxFrameBytes) {
    super(Frame.class);
    this.maxFrameBytes = maxFrameBytes;
  }

  /** The number of bytes the {@code length} field will declare for {@code frame}. */
  public static int lengthField(Frame frame) {
    return Frame.HEADER_BYTES + frame.payload().length;
  }

  @Override
  protected void encode(ChannelHandlerContext ctx, Frame frame, ByteBuf out) {
    writeTo(frame, out, maxFrameBytes);
  }

  /** Writes one frame; usable outside a pipeline (tests, batching). */
  public static void writeTo(Frame frame, ByteBuf out, int maxFrameBytes) {
    int length = lengthField(frame);
    if (length > maxFrameBytes) {
      throw new EncoderException(
          "frame requestId=" + frame.requestId() + " kind=" + frame.kind() + " length " + length
              + " > max " + maxFrameBytes);
    }
    if (frame.version() < 0 || frame.version() > 0xFF || frame.kind() < 0 || frame.kind() > 0xFF) {
      throw new EncoderException(
          "frame version " + frame.version() + " or kind " + frame.kind() + " does not fit in u8");
    }
    out.ensureWritable(FrameDecoder.LENGTH_BYTES + length);
    out.writeInt(length);
    out.writeByte(frame.version());
    out.writeByte(frame.kind());
    out.writeLong(frame.requestId());
    out.writeBytes(frame.payload());
  }

  @Override
  protected ByteBuf allocateBuffer(ChannelHandlerContext ctx, Frame frame, boolean preferDirect) {
    int size = FrameDecoder.LENGTH_BYTES + lengthField(frame);
    return preferDirect ? ctx.alloc().ioBuffer(size) : ctx.alloc().heapBuffer(size);
  }
}
