package dev.ration.server.consensus;

import dev.ration.server.consensus.CoordinatorException.Reason;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.BatchCodec;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.result.ResultCodec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * A client command a follower hands to the leader, and the leader's answer. Both travel as
 * Ratis client messages between nodes (the Raft port, which only this cluster's nodes can reach
 * under TLS); neither enters the log: the leader proposes the command through its own group
 * commit, under the request key the client chose, so a command forwarded twice (a retry through
 * another follower, or straight to the leader) applies once.
 *
 * <p>Request: {@code 'F' | i64 timeout millis | a one-proposal batch (BatchCodec, time 0)}. The
 * batch's own time is not used: the leader stamps the entry with its log clock. Answer:
 * {@code 0 | ResultCodec bytes}, or {@code 1 | u8 reason | u8 proposed | i32 retry-after millis
 * | u16 length + UTF-8 leader address | UTF-8 message} for a {@link CoordinatorException}.
 * A read message ({@link PendingReads}) is 8 bytes; a forwarded command is always longer.
 */
final class Forwarding {
  private static final byte REQUEST = 'F';
  private static final byte RESULT = 0;
  private static final byte FAILURE = 1;

  private Forwarding() {}

  /** A command as the leader gets it. */
  record Forwarded(RequestKey key, Command command, long timeoutMillis) {}

  static Message request(RequestKey key, Command command, long timeoutMillis) {
    byte[] batch = BatchCodec.encode(Batch.of(0, List.of(new Proposal(key, command))));
    ByteBuffer b = ByteBuffer.allocate(1 + Long.BYTES + batch.length);
    b.put(REQUEST).putLong(timeoutMillis).put(batch);
    return Message.valueOf(ByteString.copyFrom(b.array()));
  }

  static boolean isRequest(Message message) {
    ByteString content = message.getContent();
    return content.size() > 1 + Long.BYTES && content.byteAt(0) == REQUEST;
  }

  static Forwarded decodeRequest(Message message) {
    ByteBuffer b = message.getContent().asReadOnlyByteBuffer();
    b.get();
    long timeoutMillis = b.getLong();
    byte[] batch = new byte[b.remaining()];
    b.get(batch);
    List<Proposal> proposals = BatchCodec.decode(batch).proposals();
    if (proposals.size() != 1) {
      throw new IllegalArgumentException("a forwarded command carries " + proposals.size()
          + " proposals, expected 1");
    }
    return new Forwarded(proposals.get(0).key(), proposals.get(0).command(), timeoutMillis);
  }

  static Message answer(Result result) {
    byte[] r = ResultCodec.encode(result);
    return Message.valueOf(ByteString.copyFrom(
        ByteBuffer.allocate(1 + r.length).put(RESULT).put(r).array()));
  }

  static Message answer(CoordinatorException e) {
    byte[] leader = e.leaderClientAddress().getBytes(StandardCharsets.UTF_8);
    byte[] text = String.valueOf(e.getMessage()).getBytes(StandardCharsets.UTF_8);
    ByteBuffer b = ByteBuffer.allocate(1 + 1 + 1 + Integer.BYTES + Short.BYTES
        + Math.min(leader.length, 65_535) + text.length);
    b.put(FAILURE).put((byte) e.reason().ordinal()).put((byte) (e.proposed() ? 1 : 0))
        .putInt(e.retryAfterMillis()).putShort((short) Math.min(leader.length, 65_535))
        .put(leader, 0, Math.min(leader.length, 65_535)).put(text);
    return Message.valueOf(ByteString.copyFrom(b.array()));
  }

  /** The leader's answer: its result, or its failure thrown as it was raised there. */
  static Result decodeAnswer(Message message) {
    ByteBuffer b = message.getContent().asReadOnlyByteBuffer();
    byte tag = b.get();
    if (tag == RESULT) {
      byte[] r = new byte[b.remaining()];
      b.get(r);
      return ResultCodec.decode(r);
    }
    if (tag != FAILURE) {
      throw new IllegalArgumentException("a forwarded command's answer has tag " + tag);
    }
    Reason reason = Reason.values()[b.get()];
    boolean proposed = b.get() != 0;
    int retryAfterMillis = b.getInt();
    byte[] leader = new byte[Short.toUnsignedInt(b.getShort())];
    b.get(leader);
    byte[] text = new byte[b.remaining()];
    b.get(text);
    throw new CoordinatorException(reason, "leader: " + new String(text, StandardCharsets.UTF_8),
        new String(leader, StandardCharsets.UTF_8), retryAfterMillis, proposed);
  }
}
