package dev.ration.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Validation of names (tenant, resource, holder) shared by client and server, so both reject
 * the same things with the same words. A name is printable characters: no control characters,
 * no line or paragraph separators, no unpaired surrogates (they do not survive UTF-8), no
 * Unicode noncharacters. Stateless.
 *
 * <p>The only length checked here is the protocol's: a wire string carries a u16 byte length.
 * How long a name the cluster accepts is its configuration ({@code ledger.max-name-bytes}),
 * which a client cannot know; the server checks it and answers INVALID_ARGUMENT naming the
 * bound.
 */
public final class Names {
  /** Most UTF-8 bytes any wire string can carry: its length prefix is a u16. */
  public static final int WIRE_STRING_BYTES_MAX = 0xFFFF;

  private Names() {}

  /** The problem with {@code value} as a {@code field}, or empty when it is a valid name. */
  public static Optional<String> problem(String field, String value) {
    if (value == null) {
      return Optional.of(field + " is missing");
    }
    if (value.isEmpty()) {
      return Optional.of(field + " is empty");
    }
    // Cheap bound before encoding: a UTF-8 char is at most 3 bytes per UTF-16 unit.
    if (value.length() > WIRE_STRING_BYTES_MAX) {
      return Optional.of(field + " is " + value.length() + " chars, more than a wire string's "
          + WIRE_STRING_BYTES_MAX + " UTF-8 bytes");
    }
    for (int i = 0; i < value.length(); ) {
      int cp = value.codePointAt(i);
      if (cp <= 0xFFFF && Character.isSurrogate((char) cp)) {
        return Optional.of(field + " has an unpaired surrogate at index " + i);
      }
      int type = Character.getType(cp);
      if (Character.isISOControl(cp)
          || type == Character.LINE_SEPARATOR
          || type == Character.PARAGRAPH_SEPARATOR
          || type == Character.UNASSIGNED && isNoncharacter(cp)) {
        return Optional.of(String.format("%s has non-printable character U+%04X at index %d", field, cp, i));
      }
      i += Character.charCount(cp);
    }
    int bytes = value.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > WIRE_STRING_BYTES_MAX) {
      return Optional.of(field + " is " + bytes + " UTF-8 bytes, more than a wire string's "
          + WIRE_STRING_BYTES_MAX);
    }
    return Optional.empty();
  }

  public static boolean isValid(String value) {
    return problem("name", value).isEmpty();
  }

  /** Returns {@code value} or throws {@link IllegalArgumentException} naming the problem. */
  public static String requireValid(String field, String value) {
    Optional<String> p = problem(field, value);
    if (p.isPresent()) {
      throw new IllegalArgumentException(p.get());
    }
    return value;
  }

  private static boolean isNoncharacter(int cp) {
    return (cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE;
  }
}
