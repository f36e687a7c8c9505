package dev.ration.client.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Validation of names (tenant, resource, holder) shared by client and server, so both reject
 * the same things with the same words. A name is 1..{@value #NAME_BYTES_MAX} UTF-8 bytes of
 * printable characters: no control characters, no line or paragraph separators, no unpaired
 * surrogates (they do not survive UTF-8), no Unicode noncharacters. Stateless.
 */
public final class Names {
  public static final int NAME_BYTES_MAX = 128;

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
    if (value.length() > NAME_BYTES_MAX) {
      return Optional.of(field + " is " + value.length() + " chars, max " + NAME_BYTES_MAX + " UTF-8 bytes");
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
    if (bytes > NAME_BYTES_MAX) {
      return Optional.of(field + " is " + bytes + " UTF-8 bytes, max " + NAME_BYTES_MAX);
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
