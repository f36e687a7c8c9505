package dev.ration.statemachine.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.CheckpointManifest;
import dev.ration.statemachine.StoreException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** Manifest parsing: what the store writes reads back; bad files are refused as StoreException. */
class CheckpointsTest {

  /** The body (text before the checksum line) with a correct checksum line appended. */
  private static byte[] withChecksum(byte[] body) {
    CRC32C crc = new CRC32C();
    crc.update(body);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(body);
    out.writeBytes(("manifestCrc32c " + Long.toHexString(crc.getValue()) + "\n").getBytes(StandardCharsets.UTF_8));
    return out.toByteArray();
  }

  private static byte[] body(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** Goal: formatManifest and parseManifest are inverses. */
  @Test
  void writtenManifestReadsBack() {
    Map<String, Long> files = new TreeMap<>(Map.of("000009.sst", 0x8c1f0a2eL, "CURRENT", 0L));
    CheckpointManifest m = Checkpoints.parseManifest("m", Checkpoints.formatManifest(2, 3, 1200, files));
    assertEquals(new CheckpointManifest(2, 3, 1200, files), m);
  }

  /**
   * Goal: bytes that are not UTF-8 are refused as not a manifest. Decoded leniently, each would
   * become a replacement character that re-encodes to three bytes, and the checksummed range
   * computed from the text would run past the end of the file.
   */
  @Test
  void invalidUtf8IsAStoreException() {
    // 40 bytes that are not UTF-8 after the first line: as replacement characters they re-encode
    // to 120 bytes, more than the rest of the file.
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.writeBytes(body("ration-checkpoint\n"));
    for (int i = 0; i < 40; i++) {
      body.write(0xFF);
    }
    body.writeBytes(body("\nformatVersion 2\nterm 1\nindex 0\n"));
    byte[] bad = withChecksum(body.toByteArray());
    StoreException e = assertThrows(StoreException.class, () -> Checkpoints.parseManifest("m", bad));
    assertTrue(e.getMessage().contains("not UTF-8"), e.getMessage());
  }

  /** Goal: a format version beyond an int is refused, not truncated to another version. */
  @Test
  void formatVersionOutOfRangeIsRefused() {
    byte[] bytes = withChecksum(body("ration-checkpoint\nformatVersion 4294967298\nterm 1\nindex 0\n"));
    StoreException e = assertThrows(StoreException.class, () -> Checkpoints.parseManifest("m", bytes));
    assertTrue(e.getMessage().contains("out of range"), e.getMessage());
  }

  /**
   * Goal: a checksum is what the writer writes (a CRC32C in 1 to 8 lowercase hex digits); a
   * signed or 64-bit one is refused rather than read into a manifest that cannot be written
   * back.
   */
  @Test
  void checksumsMustBeCrc32cHex() {
    for (String crc : new String[] {"-1", "+1", "123456789", "ABCDEF", "0x1f"}) {
      byte[] bytes = withChecksum(body(
          "ration-checkpoint\nformatVersion 2\nterm 1\nindex 0\nfile CURRENT " + crc + "\n"));
      StoreException e = assertThrows(StoreException.class, () -> Checkpoints.parseManifest("m", bytes), crc);
      assertTrue(e.getMessage().contains("CRC32C"), e.getMessage());
    }
  }
}
