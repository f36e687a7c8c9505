package dev.ration.statemachine;

import java.util.Map;

/** What a checkpoint holds: the applied (term, index) and a CRC32C per file name. */
public record CheckpointManifest(int formatVersion, long term, long index, Map<String, Long> fileChecksums) {
  public static final String FILE_NAME = "MANIFEST.ration";
}
