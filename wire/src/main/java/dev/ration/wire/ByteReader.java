package dev.ration.wire;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;

/**
 * A bounds-checked big-endian reader shared by the client protocol, the log and the store.
 * Every read names its field and checks the remaining length first, so a declared length or
 * count is validated before anything is allocated for it. A violation throws the exception
 * made by the caller's {@link Failure}: the protocol wants the field path on its own (the
 * server answers MALFORMED naming it), while the log and store formats want one message with
 * the offset. Thread: confined to its caller.
 */
public final class ByteReader {

  /** Makes the exception for a failed read; {@code field} is the dotted path, never null. */
  @FunctionalInterface
  public interface Failure {
    RuntimeException at(String field, String detail);
  }

  private final byte[] bytes;
  private final String what;
  private final Failure failure;
  private final Function<String, ? extends RuntimeException> error;
  private int position;

  /**
   * A reader whose failures are one message: {@code what: detail (offset p of n)}. Used by the
   * log and store formats, whose callers only need to refuse the record.
   */
  public ByteReader(
      byte[] bytes, String what, Function<String, ? extends RuntimeException> error) {
    this(bytes, what, error, null);
  }

  /**
   * A reader whose failures carry the field path {@code what.field}. Used by the protocol,
   * where {@code what} is the message name.
   */
  public static ByteReader naming(byte[] bytes, String what, Failure failure) {
    return new ByteReader(bytes, what, null, failure);
  }

  private ByteReader(
      byte[] bytes,
      String what,
      Function<String, ? extends RuntimeException> error,
      Failure failure) {
    this.bytes = bytes;
    this.what = what;
    this.error = error;
    this.failure = failure;
  }

  /** The name of the record or message being read. */
  public String what() {
    return what;
  }

  /** A failure that concerns the record as a whole (a bad version, trailing bytes). */
  public RuntimeException fail(String message) {
    if (failure != null) {
      return failure.at(what, message + " (offset " + position + " of " + bytes.length + ")");
    }
    return error.apply(what + ": " + message + " (offset " + position + " of " + bytes.length + ")");
  }

  /** A failure of one field: the protocol reports {@code what.field}, the log a sentence. */
  public RuntimeException fail(String field, String detail) {
    if (failure != null) {
      return failure.at(
          what + "." + field, detail + " (offset " + position + " of " + bytes.length + ")");
    }
    return fail(field + ": " + detail);
  }

  public int remaining() {
    return bytes.length - position;
  }

  private void need(long count, String field) {
    if (count > remaining()) {
      throw fail(field, "truncated: need " + count + " bytes, " + remaining() + " left");
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
    int value =
        ((bytes[position] & 0xFF) << 24)
            | ((bytes[position + 1] & 0xFF) << 16)
            | ((bytes[position + 2] & 0xFF) << 8)
            | (bytes[position + 3] & 0xFF);
    position += 4;
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
      value = (value << 8) | (bytes[position + i] & 0xFF);
    }
    position += 8;
    return value;
  }

  public boolean bool(String field) {
    int value = u8(field);
    if (value > 1) {
      throw fail(field, "boolean byte " + value + " is not 0 or 1");
    }
    return value == 1;
  }

  /** u16 byte length, then strict UTF-8: malformed bytes are refused, never replaced. */
  public String str(String field) {
    int length = u16(field);
    need(length, field);
    int start = position;
    for (int i = start; i < start + length; i++) {
      if (bytes[i] < 0) {
        return strictUtf8(field, length);
      }
    }
    position += length;
    // Pure ASCII (every name in practice) needs no decoder.
    return new String(bytes, start, length, StandardCharsets.ISO_8859_1);
  }

  private String strictUtf8(String field, int length) {
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
      throw fail(field, "not valid UTF-8 (" + length + " bytes)");
    }
  }

  /** u32 length, then that many bytes; a length above {@code maxBytes} is refused unread. */
  public byte[] bytes(String field, int maxBytes) {
    long length = u32(field);
    if (length > maxBytes) {
      throw fail(field, "declared " + length + " bytes, max " + maxBytes);
    }
    return raw((int) length, field);
  }

  public byte[] raw(int length, String field) {
    if (length < 0) {
      throw fail(field, "negative length " + length);
    }
    need(length, field);
    byte[] out = new byte[length];
    System.arraycopy(bytes, position, out, 0, length);
    position += length;
    return out;
  }

  /**
   * A u32 list count, checked so that {@code count * minItemBytes} fits in what remains: a
   * hostile count can never make the caller allocate more than the payload could describe.
   */
  public int count(String field, int minItemBytes) {
    long count = u32(field);
    long needed = count * Math.max(1, minItemBytes);
    if (needed > remaining()) {
      throw fail(
          field,
          "count " + count + " needs at least " + needed + " bytes, " + remaining() + " left");
    }
    return (int) count;
  }

  /** As {@link #count}, for the log and store formats, whose lists carry a u16 count. */
  public int count16(String field, int minItemBytes) {
    int count = u16(field);
    long needed = (long) count * Math.max(1, minItemBytes);
    if (needed > remaining()) {
      throw fail(
          field,
          "count " + count + " needs at least " + needed + " bytes, " + remaining() + " left");
    }
    return count;
  }

  /** A nested struct's presence byte: 0 absent, 1 present. */
  public boolean present(String field) {
    return bool(field + ".present");
  }

  /** Refuse trailing garbage: a record must be consumed exactly. */
  public void end() {
    if (remaining() != 0) {
      throw fail(remaining() + " trailing bytes after the last field");
    }
  }
}
