package dev.ration.statemachine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.BatchCodec;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.result.ResultCodec;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

/**
 * Goal: every valid log entry and stored result the fuzzer can build (any mix of commands, any
 * result kind, any strings, extreme numbers, empty and full lists) survives encode then decode
 * unchanged, and decoding is the exact inverse of encoding: a leader that applies the batch it
 * encoded and a follower that applies the decoded bytes see the same values. Values come from
 * {@link ValueGenerator}, which reflects over the records, so a new command, result or field is
 * covered without touching this test.
 *
 * <p>Corpus: {@code LogFormatsRoundTripFuzzTestInputs/roundTrip/}, seeded with random choice
 * streams so every command and result kind is reached in regression runs.
 */
public class LogFormatsRoundTripFuzzTest {

  @FuzzTest(maxDuration = "10s")
  void roundTrip(FuzzedDataProvider data) {
    ValueGenerator generate = ValueGenerator.fuzzed(data);
    if (data.consumeBoolean()) {
      Batch batch = generate.batch(4);
      byte[] bytes = BatchCodec.encode(batch);
      Batch decoded = BatchCodec.decode(bytes);
      assertEquals(batch, decoded);
      assertArrayEquals(bytes, BatchCodec.encode(decoded));
    } else {
      Result result = generate.result();
      byte[] bytes = ResultCodec.encode(result);
      Result decoded = ResultCodec.decode(bytes);
      assertEquals(result, decoded);
      assertArrayEquals(bytes, ResultCodec.encode(decoded));
    }
  }

  /** Any bytes are a valid choice stream; enough of them reach every kind. */
  public static Map<String, byte[]> seeds() {
    Map<String, byte[]> seeds = new LinkedHashMap<>();
    Random random = new Random(13);
    for (int i = 0; i < 96; i++) {
      byte[] choices = new byte[64 + random.nextInt(448)];
      random.nextBytes(choices);
      seeds.put(String.format("choices-%02d", i), choices);
    }
    return seeds;
  }
}
