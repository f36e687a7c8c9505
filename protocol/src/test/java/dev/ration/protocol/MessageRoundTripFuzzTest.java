package dev.ration.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Goal: every valid message the fuzzer can build (any kind, request or reply or error, nested
 * structs present or absent, lists empty or not, any strings and extreme numbers) survives
 * encode then decode unchanged, and decoding is the exact inverse of encoding: the decoded value
 * encodes to the same bytes. Messages come from {@link MessageGenerator}, which reflects over
 * the protocol records, so a new field or kind is covered without touching this test.
 *
 * <p>Corpus: {@code MessageRoundTripFuzzTestInputs/roundTrip/}, seeded with random choice
 * streams (written by {@link FuzzCorpusSeeds}) so every kind is reached in regression runs.
 */
class MessageRoundTripFuzzTest {

  @FuzzTest(maxDuration = "10s")
  void roundTrip(FuzzedDataProvider data) throws Exception {
    MessageGenerator generate = MessageGenerator.fuzzed(data);
    switch (data.consumeInt(0, 2)) {
      case 0 -> {
        Request request = generate.request();
        int timeout = generate.timeoutMillis();
        byte[] bytes = MessageCodec.encodeRequest(timeout, request);
        DecodedRequest decoded = MessageCodec.decodeRequest(request.kind(), bytes);
        assertEquals(timeout, decoded.timeoutMillis());
        assertTrue(MessageGenerator.deepEquals(request, decoded.request()),
            () -> "decoded " + decoded.request() + " from " + request);
        assertArrayEquals(bytes, MessageCodec.encodeRequest(timeout, decoded.request()));
      }
      case 1 -> {
        Kind kind = generate.kind();
        Response reply = generate.reply(kind);
        assertResponseRoundTrip(kind, reply);
      }
      default -> assertResponseRoundTrip(generate.kind(), generate.error());
    }
  }

  private static void assertResponseRoundTrip(Kind kind, Response response) throws Exception {
    byte[] bytes = MessageCodec.encodeResponse(response);
    Response decoded = MessageCodec.decodeResponse(kind, bytes);
    assertTrue(MessageGenerator.deepEquals(response, decoded),
        () -> "decoded " + decoded + " from " + response + " as the reply to " + kind);
    assertArrayEquals(bytes, MessageCodec.encodeResponse(decoded));
  }
}
