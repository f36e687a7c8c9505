package dev.ration.wire;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;

/**
 * A bounds-checked big-endian reader. Every read checks the remaining length first, so a
 * declared length is validated before anything is allocated for it; a violation throws the
 * exception made by the caller's factory (a batch error, a corrupt store record), with the
 * offset and the numbers involved. Thread: confined to its caller.
 */
public final class ByteReader {
  private final byte[] bytes;
  private final String what;
  private final Function<String, ? extends RuntimeException> error;
  private int position;

  public ByteReader(
      byte[] bytes, String what, Function<String, ? extends RuntimeException> error) {
    this.bytes = bytes;
    this.what = what;
    this.error = error;
  }

  public RuntimeException fail(String message) {
    return error.apply(what + ": " + message + " (offset " + position + " of " + bytes.length + ")");
  }

  public int remaining() {
    return bytes.length - position;
  }

  private void need(int count, String field) {
    if (count > remaining()) {
      throw fail("truncated " + field + ": need " + count + " bytes, " + remaining() + " left");
    }
  }

  public int u8(String field) {
    need(1, field);
    return bytes[position++] & 0xFF;
  }

  public int u16(String field) {
    need(2, field);
    int value = ((bytes[position] & 0xFF) << 8) | (bytes[position + 1] & 0xFF);
    position += 2;
    return value;
  }

  public int i32(String field) {
    need(4, field);
    int value = 0;
    for (int i = 0; i < 4; i++) {
      value = (value << 8) | (bytes[position++] & 0xFF);
    }
    return value;
  }

  /** An unsigned 32-bit count, returned as a long so huge values cannot wrap negative. */
  public long u32(String field) {
    return i32(field) & 0xFFFF_FFFFL;
  }

  public long i64(String field) {
    need(8, field);
    long value = 0;
    for (int i = 0; i < 8; i++) {
      value = (value << 8) | (bytes[position++] & 0xFF);
    }
    return value;
  }

  public boolean bool(String field) {
    int value = u8(field);
    if (value > 1) {
      throw fail(field + " is not a boolean: " + value);
    }
    return value == 1;
  }

  public String str(String field) {
    int length = u16(field + " length");
    need(length, field);
    try {
      String value =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes, position, length))
              .toString();
      position += length;
      return value;
    } catch (CharacterCodingException e) {
      throw fail(field + " is not valid UTF-8 (" + length + " bytes)");
    }
  }

  public byte[] raw(int length, String field) {
    if (length < 0) {
      throw fail(field + " has negative length " + length);
    }
    need(length, field);
    byte[] out = new byte[length];
    System.arraycopy(bytes, position, out, 0, length);
    position += length;
    return out;
  }

  /** Refuse trailing garbage: a record must be consumed exactly. */
  public void end() {
    if (remaining() != 0) {
      throw fail(remaining() + " trailing bytes");
    }
  }
}
