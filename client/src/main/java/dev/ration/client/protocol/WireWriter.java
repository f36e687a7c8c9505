package dev.ration.client.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Appends big-endian primitives to a growable byte array. Used only by {@link MessageCodec}.
 * Not thread-safe; one instance per encoded message. Encoding a value that cannot be
 * represented (a string over 65535 UTF-8 bytes, a code out of range) is a caller bug and throws
 * {@link IllegalArgumentException} naming the field.
 */
final class WireWriter {
  private byte[] buf;
  private int size;

  WireWriter(int initialBytes) {
    buf = new byte[Math.max(16, initialBytes)];
  }

  private void ensure(int more) {
    if (size + more > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
    }
  }

  WireWriter u8(String field, int v) {
    if (v < 0 || v > 0xFF) {
      throw new IllegalArgumentException(field + " = " + v + " does not fit in u8");
    }
    ensure(1);
    buf[size++] = (byte) v;
    return this;
  }

  WireWriter u16(String field, int v) {
    if (v < 0 || v > 0xFFFF) {
      throw new IllegalArgumentException(field + " = " + v + " does not fit in u16");
    }
    ensure(2);
    buf[size++] = (byte) (v >>> 8);
    buf[size++] = (byte) v;
    return this;
  }

  WireWriter i32(int v) {
    ensure(4);
    buf[size++] = (byte) (v >>> 24);
    buf[size++] = (byte) (v >>> 16);
    buf[size++] = (byte) (v >>> 8);
    buf[size++] = (byte) v;
    return this;
  }

  WireWriter u32(String field, long v) {
    if (v < 0 || v > 0xFFFF_FFFFL) {
      throw new IllegalArgumentException(field + " = " + v + " does not fit in u32");
    }
    return i32((int) v);
  }

  WireWriter i64(long v) {
    ensure(8);
    for (int shift = 56; shift >= 0; shift -= 8) {
      buf[size++] = (byte) (v >>> shift);
    }
    return this;
  }

  WireWriter bool(boolean v) {
    ensure(1);
    buf[size++] = (byte) (v ? 1 : 0);
    return this;
  }

  /** u16 byte length + UTF-8. A null string is sent as empty: the wire has no null. */
  WireWriter string(String field, String s) {
    byte[] utf8 = s == null ? new byte[0] : s.getBytes(StandardCharsets.UTF_8);
    if (utf8.length > MessageCodec.STRING_BYTES_MAX) {
      throw new IllegalArgumentException(
          field + " is " + utf8.length + " UTF-8 bytes, max " + MessageCodec.STRING_BYTES_MAX);
    }
    u16(field, utf8.length);
    ensure(utf8.length);
    System.arraycopy(utf8, 0, buf, size, utf8.length);
    size += utf8.length;
    return this;
  }

  /** u32 length + bytes. A null array is sent as empty. */
  WireWriter bytes(String field, byte[] b) {
    byte[] v = b == null ? new byte[0] : b;
    u32(field, v.length);
    ensure(v.length);
    System.arraycopy(v, 0, buf, size, v.length);
    size += v.length;
    return this;
  }

  byte[] toByteArray() {
    return Arrays.copyOf(buf, size);
  }
}
