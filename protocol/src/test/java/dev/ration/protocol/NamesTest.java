package dev.ration.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Goal: name validation accepts printable UTF-8 up to a wire string's length and names what it
 * rejects; the cluster's own, shorter bound is configuration and checked by the server.
 */
class NamesTest {
  @Test
  void acceptsPrintableNames() {
    assertTrue(Names.isValid("a"));
    assertTrue(Names.isValid("tenant-1/api.search"));
    assertTrue(Names.isValid("x".repeat(128)));
    assertTrue(Names.isValid("é".repeat(64))); // 128 bytes
    assertTrue(Names.isValid("x".repeat(256))); // longer than the default cluster bound
    assertTrue(Names.isValid("x".repeat(Names.WIRE_STRING_BYTES_MAX)));
    assertTrue(Names.isValid("with space"));
    assertTrue(Names.isValid("\uD83D\uDE00")); // a paired surrogate: one emoji
  }

  @Test
  void rejectsWithReasons() {
    assertEquals("tenant is empty", Names.problem("tenant", "").orElseThrow());
    assertEquals("tenant is missing", Names.problem("tenant", null).orElseThrow());
    assertTrue(Names.problem("tenant", "x".repeat(65_536)).orElseThrow().contains("65536 chars"));
    assertEquals("tenant is 65536 UTF-8 bytes, more than a wire string's 65535",
        Names.problem("tenant", "é".repeat(32_768)).orElseThrow());
    assertEquals(
        "holder has non-printable character U+000A at index 1",
        Names.problem("holder", "a\nb").orElseThrow());
    assertFalse(Names.isValid("a\u0000"));
    assertFalse(Names.isValid("a\u2028"));
    assertFalse(Names.isValid("\uD800"));
    assertFalse(Names.isValid("a\uFFFF"));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Names.requireValid("resource", "\t"));
    assertTrue(e.getMessage().startsWith("resource has non-printable"), e.getMessage());
  }
}
