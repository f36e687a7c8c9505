package dev.ration.statemachine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.ration.statemachine.command.BatchCodecFuzzTest;
import dev.ration.statemachine.quota.QuotaFormatFuzzTest;
import dev.ration.statemachine.result.ResultCodecFuzzTest;
import dev.ration.statemachine.store.CheckpointManifestFuzzTest;
import dev.ration.statemachine.store.StoreFormatFuzzTest;
import dev.ration.statemachine.ttl.TtlFormatFuzzTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Writes the seed corpus of this module's fuzz tests from real encodings (each fuzz test's
 * {@code seeds()}), so fuzzing starts from inputs that already pass every length and code check.
 * Seeds are named {@code seed-...}; a rerun replaces exactly those and leaves kept regression
 * inputs alone. Deterministic (fixed random seeds), so a rerun after a format change shows as a
 * diff.
 *
 * <pre>
 * mvn -B -pl statemachine -am test -Dtest=FuzzCorpusSeeds -Dfuzz.writeSeeds=true -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 */
@EnabledIfSystemProperty(named = "fuzz.writeSeeds", matches = "true")
class FuzzCorpusSeeds {
  private static final Path RESOURCES = Path.of("src/test/resources");

  @Test
  void write() throws IOException {
    write(BatchCodecFuzzTest.class, "decode", BatchCodecFuzzTest.seeds());
    write(ResultCodecFuzzTest.class, "decode", ResultCodecFuzzTest.seeds());
    write(LogFormatsRoundTripFuzzTest.class, "roundTrip", LogFormatsRoundTripFuzzTest.seeds());
    write(StoreFormatFuzzTest.class, "decode", StoreFormatFuzzTest.seeds());
    write(TtlFormatFuzzTest.class, "decode", TtlFormatFuzzTest.seeds());
    write(QuotaFormatFuzzTest.class, "decode", QuotaFormatFuzzTest.seeds());
    write(CheckpointManifestFuzzTest.class, "parse", CheckpointManifestFuzzTest.seeds());
  }

  private static void write(Class<?> test, String method, Map<String, byte[]> seeds)
      throws IOException {
    Path dir = RESOURCES.resolve(test.getPackageName().replace('.', '/'))
        .resolve(test.getSimpleName() + "Inputs").resolve(method);
    Files.createDirectories(dir);
    List<Path> old = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      files.filter(f -> f.getFileName().toString().startsWith("seed-")).forEach(old::add);
    }
    for (Path f : old) {
      Files.delete(f);
    }
    assertFalse(seeds.isEmpty(), test.getSimpleName() + " has no seeds");
    for (Map.Entry<String, byte[]> seed : seeds.entrySet()) {
      Path file = dir.resolve("seed-" + seed.getKey());
      Files.write(file, seed.getValue());
      assertArrayEquals(seed.getValue(), Files.readAllBytes(file), "seed " + file + " as written");
    }
  }
}
