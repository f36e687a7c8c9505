package dev.ration.protocol;

import dev.ration.wire.ErrorCode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Arrays;

/**
 * Goal: any payload a peer can send either decodes or is refused with {@link
 * MalformedMessageException}; no other exception escapes the codec (an index, size or null
 * error, or an allocation sized by a hostile count, is a bug). What decodes is canonical:
 * encoding it again gives the same bytes, so two readers can never disagree about a message.
 *
 * <p>Input: byte 0 is the frame's kind byte (with the response bit set, the rest is decoded as
 * the reply to that kind, as the client does; without it, as the request, as the server does),
 * the remaining bytes are the payload. Corpus: {@code MessageCodecFuzzTestInputs/decode/}, one
 * valid request and several replies per kind (written by {@link FuzzCorpusSeeds}).
 */
class MessageCodecFuzzTest {

  @FuzzTest(maxDuration = "10s")
  void decode(byte[] input) throws Exception {
    if (input.length == 0) {
      return;
    }
    int kindByte = input[0] & 0xFF;
    Kind kind = Kind.fromCode(kindByte);
    if (kind == null) {
      return;
    }
    byte[] payload = Arrays.copyOfRange(input, 1, input.length);
    if ((kindByte & Kind.RESPONSE_BIT) == 0) {
      request(kind, payload);
    } else {
      response(kind, payload);
    }
  }

  private static void request(Kind kind, byte[] payload) throws Exception {
    DecodedRequest decoded;
    try {
      decoded = MessageCodec.decodeRequest(kind, payload);
    } catch (MalformedMessageException e) {
      return;
    }
    assertEquals(kind, decoded.request().kind());
    assertArrayEquals(payload, MessageCodec.encodeRequest(decoded.timeoutMillis(), decoded.request()),
        "request " + kind + " is not canonical");
  }

  private static void response(Kind kind, byte[] payload) throws Exception {
    Response decoded;
    try {
      decoded = MessageCodec.decodeResponse(kind, payload);
    } catch (MalformedMessageException e) {
      return;
    }
    int code = ((payload[0] & 0xFF) << 8) | (payload[1] & 0xFF);
    if (code != 0 && ErrorCode.fromCode(code) == null) {
      // A newer server's error code: read as INTERNAL, the number kept in the message. Not
      // canonical by design, so only the mapping is checked.
      Response.Error error = (Response.Error) decoded;
      assertEquals(ErrorCode.INTERNAL, error.code());
      assertTrue(error.message().startsWith("unknown error code " + code + ": "), error.message());
      return;
    }
    assertArrayEquals(payload, MessageCodec.encodeResponse(decoded),
        "reply to " + kind + " is not canonical");
  }
}
