package dev.ration.wire;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * An immutable byte string: a TTL entry's value. A record around an array would compare arrays
 * by identity; this one compares contents, and copies in and out so nobody mutates it.
 */
public record Bytes(byte[] array) {
  public static final Bytes EMPTY = new Bytes(new byte[0]);

  public Bytes {
    array = array.clone();
  }

  public static Bytes utf8(String text) {
    return new Bytes(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  @Override
  public byte[] array() {
    return array.clone();
  }

  /** The backing array without a copy, for encoders that only read it. */
  public byte[] unsafeArray() {
    return array;
  }

  public int length() {
    return array.length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Bytes b && Arrays.equals(array, b.array);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(array);
  }

  @Override
  public String toString() {
    return array.length <= 32
        ? "Bytes[" + HexFormat.of().formatHex(array) + "]"
        : "Bytes[" + array.length + " bytes]";
  }
}
