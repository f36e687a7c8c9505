package dev.ration.wire;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable big-endian byte buffer for the client protocol and the log, result and store
 * formats. The field-named overloads say which field could not be represented (a caller bug,
 * reported as {@link IllegalArgumentException}).
 *
 * <p>Strings are encoded strictly (malformed UTF-16 is refused, never replaced), so that
 * decode(encode(x)) equals x: a leader that applies the object it encoded and a follower that
 * applies the decoded bytes must see the same value. Thread: confined to its caller.
 */
public final class ByteWriter {
  private static final byte[] EMPTY = new byte[0];

  private byte[] bytes;
  private int size;

  public ByteWriter(int initialCapacity) {
    bytes = new byte[Math.max(16, initialCapacity)];
  }

  private void ensure(int more) {
    if (size + more > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
    }
  }

  public ByteWriter u8(int value) {
    return u8("u8", value);
  }

  public ByteWriter u8(String field, int value) {
    if (value < 0 || value > 0xFF) {
      throw new IllegalArgumentException(field + " = " + value + " does not fit in u8");
    }
    ensure(1);
    bytes[size++] = (byte) value;
    return this;
  }

  public ByteWriter u16(int value) {
    return u16("u16", value);
  }

  public ByteWriter u16(String field, int value) {
    if (value < 0 || value > 0xFFFF) {
      throw new IllegalArgumentException(field + " = " + value + " does not fit in u16");
    }
    ensure(2);
    bytes[size++] = (byte) (value >>> 8);
    bytes[size++] = (byte) value;
    return this;
  }

  public ByteWriter i32(int value) {
    ensure(4);
    for (int shift = 24; shift >= 0; shift -= 8) {
      bytes[size++] = (byte) (value >>> shift);
    }
    return this;
  }

  public ByteWriter u32(String field, long value) {
    if (value < 0 || value > 0xFFFF_FFFFL) {
      throw new IllegalArgumentException(field + " = " + value + " does not fit in u32");
    }
    return i32((int) value);
  }

  public ByteWriter i64(long value) {
    ensure(8);
    for (int shift = 56; shift >= 0; shift -= 8) {
      bytes[size++] = (byte) (value >>> shift);
    }
    return this;
  }

  public ByteWriter bool(boolean value) {
    return u8(value ? 1 : 0);
  }

  /** u16 byte length, then the UTF-8 bytes. */
  public ByteWriter str(String value) {
    byte[] utf8 = utf8(value);
    u16(utf8.length);
    return raw(utf8);
  }

  /**
   * u16 byte length, then the UTF-8 bytes; null is sent as empty because the protocol has no
   * null string. Longer than 65535 bytes is refused naming the field.
   */
  public ByteWriter str(String field, String value) {
    byte[] utf8 = value == null ? EMPTY : utf8(value);
    if (utf8.length > 0xFFFF) {
      throw new IllegalArgumentException(
          field + " is " + utf8.length + " UTF-8 bytes, max " + 0xFFFF);
    }
    u16(utf8.length);
    return raw(utf8);
  }

  /** u32 length, then the bytes; null is sent as empty. */
  public ByteWriter bytes(String field, byte[] value) {
    byte[] v = value == null ? EMPTY : value;
    u32(field, v.length);
    return raw(v);
  }

  public ByteWriter raw(byte[] value) {
    ensure(value.length);
    System.arraycopy(value, 0, bytes, size, value.length);
    size += value.length;
    return this;
  }

  public byte[] toByteArray() {
    return Arrays.copyOf(bytes, size);
  }

  /**
   * Strict UTF-8: an unpaired surrogate is an IllegalArgumentException, never a '?'. Text without
   * surrogates (every name in practice) cannot be malformed and takes {@link String#getBytes};
   * only text with a surrogate goes through the strict encoder, which also checks the pairing.
   */
  public static byte[] utf8(String value) {
    for (int i = 0; i < value.length(); i++) {
      if (Character.isSurrogate(value.charAt(i))) {
        return strictUtf8(value);
      }
    }
    return value.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] strictUtf8(String value) {
    CharsetEncoder encoder =
        StandardCharsets.UTF_8
            .newEncoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      ByteBuffer buffer = encoder.encode(CharBuffer.wrap(value));
      byte[] out = new byte[buffer.remaining()];
      buffer.get(out);
      return out;
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("string is not valid UTF-16 (unpaired surrogate)", e);
    }
  }
}
