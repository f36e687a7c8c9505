package dev.ration.statemachine.result;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.ration.statemachine.ValueGenerator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Goal: any bytes in a stored result (an idempotency record read back from disk, a leader's
 * reply) either decode to a {@link Result} or are refused with {@link ResultFormatException};
 * no other exception escapes. A result that decodes is canonical: encoding it again gives the
 * same bytes, which is what lets a retry get its first answer back byte for byte. The quota
 * results ({@link QuotaResultCodec}) and the quota structs they share with the store ({@code
 * QuotaFormat}: specs, drifts) are covered the same way.
 *
 * <p>Corpus: {@code ResultCodecFuzzTestInputs/decode/}: the golden results of {@link
 * ResultCodecTest} and a few encodings of every result kind.
 */
public class ResultCodecFuzzTest {

  @FuzzTest(maxDuration = "10s")
  void decode(byte[] input) {
    Result result;
    try {
      result = ResultCodec.decode(input);
    } catch (ResultFormatException e) {
      return;
    }
    byte[] again = ResultCodec.encode(result);
    assertArrayEquals(input, again, "stored result is not canonical");
    assertEquals(result, ResultCodec.decode(again));
  }

  /** Seed inputs: real encodings. */
  public static Map<String, byte[]> seeds() {
    Map<String, byte[]> seeds = new LinkedHashMap<>();
    for (int i = 0; i < ResultCodecTest.EVERY_KIND.size(); i++) {
      seeds.put("golden-" + i, ResultCodec.encode(ResultCodecTest.EVERY_KIND.get(i)));
    }
    ValueGenerator generate = ValueGenerator.seeded(12);
    for (Class<?> type : ValueGenerator.resultClasses()) {
      for (int i = 0; i < 2; i++) {
        seeds.put(type.getSimpleName() + "-" + i, ResultCodec.encode(generate.result(type)));
      }
    }
    return seeds;
  }
}
