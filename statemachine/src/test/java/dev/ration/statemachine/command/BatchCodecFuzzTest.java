package dev.ration.statemachine.command;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.ration.statemachine.ValueGenerator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Goal: any bytes in a log entry (a corrupt or hostile entry, a future format) either decode to
 * a {@link Batch} or are refused with {@link BatchFormatException}; no other exception escapes
 * (an index, size or null error, or an allocation sized by a declared count, is a bug). A batch
 * that decodes is canonical: encoding it again gives the same bytes, so every replica that
 * applies the entry applies the same commands, and the quota commands (decoded by {@link
 * QuotaCommandCodec}) are covered the same way.
 *
 * <p>Corpus: {@code BatchCodecFuzzTestInputs/decode/}: the golden batch of {@link
 * BatchCodecTest}, one batch per command kind and some mixed batches.
 */
public class BatchCodecFuzzTest {

  @FuzzTest(maxDuration = "10s")
  void decode(byte[] input) {
    Batch batch;
    try {
      batch = BatchCodec.decode(input);
    } catch (BatchFormatException e) {
      return;
    }
    byte[] again = BatchCodec.encode(batch);
    assertArrayEquals(input, again, "log entry is not canonical");
    assertEquals(batch, BatchCodec.decode(again));
  }

  /** Seed inputs: real encodings. */
  public static Map<String, byte[]> seeds() {
    Map<String, byte[]> seeds = new LinkedHashMap<>();
    seeds.put("golden-every-lease-kind", BatchCodec.encode(BatchCodecTest.EVERY_KIND));
    ValueGenerator generate = ValueGenerator.seeded(11);
    for (Class<?> type : ValueGenerator.commandClasses()) {
      Command command = generate.command(type);
      seeds.put("one-" + type.getSimpleName(), BatchCodec.encode(Batch.of(1_700_000_000_000L,
          java.util.List.of(new Proposal(new RequestKey(1, 2, 3), command)))));
    }
    for (int i = 0; i < 8; i++) {
      seeds.put("mixed-" + i, BatchCodec.encode(generate.batch(6)));
    }
    seeds.put("empty", BatchCodec.encode(Batch.of(0, java.util.List.of())));
    return seeds;
  }
}
