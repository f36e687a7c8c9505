package dev.ration.protocol;

import dev.ration.wire.ErrorCode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Writes the seed corpus of this module's fuzz tests from real encodings: a valid request and
 * several replies of every kind, error replies, and pipelined streams of frames, so fuzzing
 * starts from inputs that already pass every length and code check. Seeds are named
 * {@code seed-...}; a rerun replaces exactly those and leaves kept regression inputs alone.
 * Deterministic (fixed random seeds), so a rerun after a format change shows as a diff.
 *
 * <pre>
 * mvn -B -pl protocol -am test -Dtest=FuzzCorpusSeeds -Dfuzz.writeSeeds=true -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 */
@EnabledIfSystemProperty(named = "fuzz.writeSeeds", matches = "true")
class FuzzCorpusSeeds {
  private static final Path INPUTS = Path.of("src/test/resources/dev/ration/protocol");

  @Test
  void write() throws IOException {
    writeCodecSeeds();
    writeFrameSeeds();
    writeRoundTripSeeds();
  }

  private static void writeCodecSeeds() throws IOException {
    Path dir = clean(MessageCodecFuzzTest.class, "decode");
    MessageGenerator generate = MessageGenerator.seeded(1);
    for (Class<?> type : MessageGenerator.requestClasses()) {
      Request request = generate.request(type);
      write(dir, "request-" + request.kind(), withKind(request.kind().code(),
          MessageCodec.encodeRequest(generate.timeoutMillis(), request)));
    }
    for (Kind kind : Kind.values()) {
      for (int i = 0; i < 3; i++) {
        write(dir, "reply-" + kind + "-" + i,
            withKind(kind.responseCode(), MessageCodec.encodeResponse(generate.reply(kind))));
      }
    }
    // HELLO credentials: a bearer token, and the longest credential the protocol accepts.
    write(dir, "request-HELLO-token", withKind(Kind.HELLO.code(), MessageCodec.encodeRequest(0,
        new Request.Hello(1, 7, 8, ("rtn_00000000000000aa_"
            + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA").getBytes(
                java.nio.charset.StandardCharsets.US_ASCII)))));
    write(dir, "request-HELLO-credential-max", withKind(Kind.HELLO.code(), MessageCodec.encodeRequest(
        0, new Request.Hello(1, 7, 8, new byte[MessageCodec.CREDENTIAL_BYTES_MAX]))));
    write(dir, "error-NOT_LEADER", withKind(Kind.ACQUIRE_LEASE.responseCode(), MessageCodec.encodeResponse(
        new Response.Error(ErrorCode.NOT_LEADER, "not the leader", "127.0.0.1:7102", 0))));
    write(dir, "error-OVERLOADED", withKind(Kind.RENEW_LEASE.responseCode(), MessageCodec.encodeResponse(
        new Response.Error(ErrorCode.OVERLOADED, "in-flight cap", "", 250))));
    byte[] unknown = MessageCodec.encodeResponse(new Response.Error(ErrorCode.INTERNAL, "newer", "", 0));
    unknown[1] = 99; // an error code this version does not know
    write(dir, "error-unknown-code", withKind(Kind.HELLO.responseCode(), unknown));
  }

  private static void writeFrameSeeds() throws IOException {
    Path dir = clean(FrameDecoderFuzzTest.class, "decode");
    MessageGenerator generate = MessageGenerator.seeded(2);
    ByteArrayOutputStream requests = new ByteArrayOutputStream();
    long id = 1;
    for (Class<?> type : MessageGenerator.requestClasses()) {
      requests.writeBytes(frame(MessageCodec.requestFrame(id++, generate.timeoutMillis(), generate.request(type))));
    }
    ByteArrayOutputStream responses = new ByteArrayOutputStream();
    for (Kind kind : Kind.values()) {
      responses.writeBytes(frame(MessageCodec.responseFrame(id++, kind, generate.reply(kind))));
    }
    responses.writeBytes(frame(new FrameError(ErrorCode.UNKNOWN_KIND, "unknown request kind 0x7f", id++, false).toFrame()));
    byte[] hello = frame(MessageCodec.requestFrame(1, 0, new Request.Hello(1, 7, 8, new byte[0])));
    byte[] status = frame(MessageCodec.requestFrame(2, 0, new Request.ClusterStatus()));

    // Setup bytes: side and piece size, then the maximum frame length above the header.
    write(dir, "seed-server-pipeline", setup(0, 0, 0xFFFF), requests.toByteArray());
    write(dir, "seed-server-pipeline-in-7-byte-pieces", setup(0, 7, 0xFFFF), requests.toByteArray());
    write(dir, "seed-client-replies", setup(1, 0, 0xFFFF), responses.toByteArray());
    write(dir, "seed-client-replies-in-3-byte-pieces", setup(1, 3, 0xFFFF), responses.toByteArray());
    write(dir, "seed-server-unknown-kind-then-valid", setup(0, 0, 1024),
        frame(new Frame(1, 0x7F, 9, new byte[] {0, 0, 0, 0})), status);
    write(dir, "seed-server-reply-kind-refused", setup(0, 0, 1024),
        frame(new Frame(1, Kind.HELLO.responseCode(), 9, new byte[2])), hello);
    write(dir, "seed-server-too-large", setup(0, 0, 16), hello, status);
    write(dir, "seed-server-bad-version", setup(0, 0, 1024),
        frame(new Frame(2, Kind.HELLO.code(), 3, new byte[4])), status);
    write(dir, "seed-server-length-below-header", setup(0, 0, 1024), new byte[] {0, 0, 0, 9, 1, 1});
    write(dir, "seed-server-truncated", setup(0, 5, 1024), hello, status,
        java.util.Arrays.copyOf(hello, hello.length - 3));
  }

  private static void writeRoundTripSeeds() throws IOException {
    // The round-trip test reads its choices from the input, so any bytes are a valid seed;
    // enough of them reach every kind in a regression run.
    Path dir = clean(MessageRoundTripFuzzTest.class, "roundTrip");
    Random random = new Random(3);
    for (int i = 0; i < 96; i++) {
      byte[] choices = new byte[64 + random.nextInt(448)];
      random.nextBytes(choices);
      write(dir, String.format("seed-choices-%02d", i), choices);
    }
  }

  private static byte[] frame(Frame frame) {
    ByteBuf out = Unpooled.buffer();
    FrameEncoder.writeTo(frame, out, Frame.DEFAULT_MAX_FRAME_BYTES);
    byte[] bytes = new byte[out.readableBytes()];
    out.readBytes(bytes);
    return bytes;
  }

  private static byte[] setup(int side, int piece, int maxAboveHeader) {
    return new byte[] {(byte) (side | piece << 1), (byte) (maxAboveHeader >>> 8), (byte) maxAboveHeader};
  }

  private static byte[] withKind(int kindByte, byte[] payload) {
    return ByteBuffer.allocate(1 + payload.length).put((byte) kindByte).put(payload).array();
  }

  private static Path clean(Class<?> test, String method) throws IOException {
    Path dir = INPUTS.resolve(test.getSimpleName() + "Inputs").resolve(method);
    Files.createDirectories(dir);
    List<Path> old = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      files.filter(f -> f.getFileName().toString().startsWith("seed-")).forEach(old::add);
    }
    for (Path f : old) {
      Files.delete(f);
    }
    return dir;
  }

  private static void write(Path dir, String name, byte[]... parts) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    String file = name.startsWith("seed-") ? name : "seed-" + name;
    byte[] seed = out.toByteArray();
    assertTrue(seed.length > 0, "empty seed " + file);
    Files.write(dir.resolve(file), seed);
    assertArrayEquals(seed, Files.readAllBytes(dir.resolve(file)), "seed " + file + " as written");
  }
}
