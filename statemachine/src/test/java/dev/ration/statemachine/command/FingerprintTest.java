package dev.ration.statemachine.command;

import dev.ration.statemachine.command.TtlCommand.PutEntry;
import dev.ration.statemachine.command.TtlCommand.DeleteEntry;
import dev.ration.statemachine.command.QuotaCommand.Reserve;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.wire.Bytes;
import dev.ration.wire.ByteWriter;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The request fingerprint is the digest of exactly the command's log encoding. */
class FingerprintTest {
  private static PutEntry put(String value, long ttl) {
    return new PutEntry("ns", "k1", new Bytes(value.getBytes(StandardCharsets.UTF_8)), ttl);
  }

  /** Goal: the digest covers the command code and fields as the log writes them, nothing else. */
  @Test
  void digestIsOfTheCommandsLogEncoding() throws Exception {
    byte[] encoded = new ByteWriter(64).u8(PutEntry.CODE).str("ns").str("k1").i32(5)
        .raw("first".getBytes(StandardCharsets.UTF_8)).i64(60_000).toByteArray();
    byte[] expected = Arrays.copyOf(MessageDigest.getInstance("SHA-256").digest(encoded), 16);
    Fingerprint f = Fingerprint.of(put("first", 60_000));
    assertEquals(PutEntry.CODE, f.commandCode());
    assertArrayEquals(expected, f.digest());
    assertEquals("TTL_PUT", f.operation());
  }

  /** Goal: equal commands fingerprint equal; any field, or the command, changes it. */
  @Test
  void fingerprintsSeparateRequests() {
    Fingerprint first = Fingerprint.of(put("first", 60_000));
    assertTrue(first.matches(Fingerprint.of(put("first", 60_000))));
    assertFalse(first.matches(Fingerprint.of(put("second", 60_000))));
    assertFalse(first.matches(Fingerprint.of(put("first", 60_001))));
    assertFalse(first.matches(Fingerprint.of(new DeleteEntry("ns", "k1", 0))));
    Reserve a = new Reserve("acme", List.of(new Reserve.Item("jobs", 1)), 0, 1_000);
    Reserve b = new Reserve("acme", List.of(new Reserve.Item("jobs", 2)), 0, 1_000);
    assertTrue(Fingerprint.of(a).matches(Fingerprint.of(a)));
    assertFalse(Fingerprint.of(a).matches(Fingerprint.of(b)));
    assertEquals("RESERVE", Fingerprint.of(a).operation());
  }
}
