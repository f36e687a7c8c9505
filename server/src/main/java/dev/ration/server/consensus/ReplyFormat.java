package dev.ration.server.consensus;

import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.result.ResultCodec;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The reply of one applied batch, leader-local (it never enters the log): big-endian
 * {@code u32 count | count × (u32 length | ResultCodec bytes)}, one result per proposal, in order.
 */
final class ReplyFormat {
  private ReplyFormat() {}

  static byte[] encode(List<Result> results) {
    List<byte[]> encoded = new ArrayList<>(results.size());
    int size = Integer.BYTES;
    for (Result result : results) {
      byte[] bytes = ResultCodec.encode(result);
      encoded.add(bytes);
      size += Integer.BYTES + bytes.length;
    }
    ByteBuffer out = ByteBuffer.allocate(size);
    out.putInt(encoded.size());
    for (byte[] bytes : encoded) {
      out.putInt(bytes.length).put(bytes);
    }
    return out.array();
  }

  static List<Result> decode(ByteBuffer in) {
    if (in.remaining() < Integer.BYTES) {
      throw new IllegalArgumentException("reply of " + in.remaining() + " bytes has no count");
    }
    int count = in.getInt();
    if (count < 0 || (long) count * Integer.BYTES > in.remaining()) {
      throw new IllegalArgumentException(
          "reply declares " + count + " results in " + in.remaining() + " bytes");
    }
    List<Result> results = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int length = in.remaining() >= Integer.BYTES ? in.getInt() : -1;
      if (length < 0 || length > in.remaining()) {
        throw new IllegalArgumentException(
            "reply result " + i + " declares length " + length + " with " + in.remaining() + " left");
      }
      byte[] bytes = new byte[length];
      in.get(bytes);
      results.add(ResultCodec.decode(bytes));
    }
    if (in.hasRemaining()) {
      throw new IllegalArgumentException("reply has " + in.remaining() + " trailing bytes");
    }
    return results;
  }
}
