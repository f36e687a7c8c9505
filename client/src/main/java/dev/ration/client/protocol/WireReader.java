package dev.ration.client.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Reads big-endian primitives from one payload, checking every declared length against what
 * remains before allocating for it. Every method names the field it reads so a failure says
 * exactly what was wrong. Not thread-safe; one instance per decoded message.
 */
final class WireReader {
  private final byte[] buf;
  private final String message;
  private int pos;

  WireReader(byte[] buf, String message) {
    this.buf = buf;
    this.message = message;
  }

  int remaining() {
    return buf.length - pos;
  }

  private void need(String field, int n) throws MalformedMessageException {
    if (n > remaining()) {
      throw new MalformedMessageException(
          message + "." + field,
          "truncated: needs " + n + " bytes, " + remaining() + " remain");
    }
  }

  int u8(String field) throws MalformedMessageException {
    need(field, 1);
    return buf[pos++] & 0xFF;
  }

  int u16(String field) throws MalformedMessageException {
    need(field, 2);
    int v = ((buf[pos] & 0xFF) << 8) | (buf[pos + 1] & 0xFF);
    pos += 2;
    return v;
  }

  int i32(String field) throws MalformedMessageException {
    need(field, 4);
    int v =
        ((buf[pos] & 0xFF) << 24)
            | ((buf[pos + 1] & 0xFF) << 16)
            | ((buf[pos + 2] & 0xFF) << 8)
            | (buf[pos + 3] & 0xFF);
    pos += 4;
    return v;
  }

  long u32(String field) throws MalformedMessageException {
    return i32(field) & 0xFFFF_FFFFL;
  }

  long i64(String field) throws MalformedMessageException {
    need(field, 8);
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (buf[pos + i] & 0xFF);
    }
    pos += 8;
    return v;
  }

  boolean bool(String field) throws MalformedMessageException {
    int v = u8(field);
    if (v > 1) {
      throw new MalformedMessageException(message + "." + field, "boolean byte " + v + " is not 0 or 1");
    }
    return v == 1;
  }

  String string(String field) throws MalformedMessageException {
    int len = u16(field);
    need(field, len);
    try {
      String s =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(buf, pos, len))
              .toString();
      pos += len;
      return s;
    } catch (CharacterCodingException e) {
      throw new MalformedMessageException(message + "." + field, "invalid UTF-8 (" + e + ")");
    }
  }

  byte[] bytes(String field, int maxBytes) throws MalformedMessageException {
    long len = u32(field);
    if (len > maxBytes) {
      throw new MalformedMessageException(
          message + "." + field, "declared " + len + " bytes, max " + maxBytes);
    }
    need(field, (int) len);
    byte[] out = new byte[(int) len];
    System.arraycopy(buf, pos, out, 0, out.length);
    pos += out.length;
    return out;
  }

  /**
   * A list count, checked so that {@code count * minItemBytes} fits in what remains: a hostile
   * count can never make us allocate more than the payload could describe.
   */
  int count(String field, int minItemBytes) throws MalformedMessageException {
    long count = u32(field);
    if (count * minItemBytes > remaining()) {
      throw new MalformedMessageException(
          message + "." + field,
          "count "
              + count
              + " needs at least "
              + count * minItemBytes
              + " bytes, "
              + remaining()
              + " remain");
    }
    return (int) count;
  }

  /** A nested struct's presence byte: 0 absent, 1 present. */
  boolean present(String field) throws MalformedMessageException {
    return bool(field + ".present");
  }

  void end() throws MalformedMessageException {
    if (remaining() != 0) {
      throw new MalformedMessageException(message, remaining() + " trailing bytes after the last field");
    }
  }

  String message() {
    return message;
  }
}
