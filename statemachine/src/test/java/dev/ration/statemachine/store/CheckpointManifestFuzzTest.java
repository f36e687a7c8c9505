package dev.ration.statemachine.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.ration.statemachine.CheckpointManifest;
import dev.ration.statemachine.StoreException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * Goal: any bytes in a checkpoint's manifest file (truncated, edited by hand, another build's,
 * not text at all) either parse or are refused with {@link StoreException}; no other exception
 * escapes, so a restore from a bad checkpoint always stops with the manifest named. A manifest
 * that parses survives writing it again: parsing the written bytes gives the same manifest.
 *
 * <p>Input: byte 0 bit 0 set means "append the right CRC line" (the rest is the body before the
 * {@code manifestCrc32c} line, so the fuzzer reaches the parsing behind the checksum); clear
 * means the rest is the whole file as found on disk. Corpus: {@code
 * CheckpointManifestFuzzTestInputs/parse/}, manifests as the store writes them.
 */
public class CheckpointManifestFuzzTest {

  @FuzzTest(maxDuration = "10s")
  void parse(byte[] input) {
    if (input.length < 1) {
      return;
    }
    byte[] file = Arrays.copyOfRange(input, 1, input.length);
    if ((input[0] & 1) != 0) {
      file = withCrcLine(file);
    }
    CheckpointManifest manifest;
    try {
      manifest = Checkpoints.parseManifest("fuzzed manifest", file);
    } catch (StoreException e) {
      return;
    }
    byte[] again = Checkpoints.formatManifest(manifest.formatVersion(), manifest.term(),
        manifest.index(), manifest.fileChecksums());
    assertEquals(manifest, Checkpoints.parseManifest("rewritten manifest", again));
  }

  private static byte[] withCrcLine(byte[] body) {
    CRC32C crc = new CRC32C();
    crc.update(body);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(body);
    out.writeBytes(("manifestCrc32c " + Long.toHexString(crc.getValue()) + "\n")
        .getBytes(StandardCharsets.UTF_8));
    return out.toByteArray();
  }

  /** Seed inputs: manifests as the store writes them, whole and as bodies. */
  public static Map<String, byte[]> seeds() {
    Map<String, byte[]> seeds = new LinkedHashMap<>();
    Map<String, Long> files = new TreeMap<>();
    seeds.put("empty-checkpoint", whole(Checkpoints.formatManifest(2, 1, 0, files)));
    files.put("000009.sst", 0x8c1f0a2eL);
    files.put("CURRENT", 0x1L);
    files.put("MANIFEST-000012", 0xffffffffL);
    files.put("OPTIONS-000014", 0L);
    byte[] manifest = Checkpoints.formatManifest(2, 3, 1200, files);
    seeds.put("four-files", whole(manifest));
    String text = new String(manifest, StandardCharsets.UTF_8);
    String body = text.substring(0, text.lastIndexOf("manifestCrc32c"));
    seeds.put("four-files-body", bodyOnly(body));
    seeds.put("crlf-body", bodyOnly(body.replace("\n", "\r\n")));
    return seeds;
  }

  private static byte[] whole(byte[] file) {
    byte[] out = new byte[1 + file.length];
    System.arraycopy(file, 0, out, 1, file.length);
    return out;
  }

  private static byte[] bodyOnly(String body) {
    byte[] out = whole(body.getBytes(StandardCharsets.UTF_8));
    out[0] = 1;
    return out;
  }
}
