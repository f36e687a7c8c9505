package dev.ration.server.consensus;

import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * Linearizable reads in flight on this node, keyed by a process-local id.
 *
 * <p>Why a registry and not a query codec: Ratis serves a read on the server that received it
 * (ReadIndex, then {@code StateMachine.query} locally), and we only ever submit reads to
 * ourselves, so the {@link Query} object never has to leave the process. The read message carries
 * just the 8-byte id; the entry also holds the leader's log time taken when the read was
 * accepted, so expiry is judged at max(state now, leader now). A codec would add a second,
 * untested wire format for no gain.
 *
 * <p>Thread-safe. Entries are removed by the submitter when the read completes or fails.
 */
final class PendingReads {
  /** One read: the question, the leader's log time at acceptance, and the answer once served. */
  static final class Read {
    final Query query;
    final long readNowMillis;
    volatile QueryResult result;

    Read(Query query, long readNowMillis) {
      this.query = query;
      this.readNowMillis = readNowMillis;
    }
  }

  private final AtomicLong nextId = new AtomicLong(1);
  private final ConcurrentHashMap<Long, Read> reads = new ConcurrentHashMap<>();

  long register(Query query, long readNowMillis) {
    long id = nextId.getAndIncrement();
    reads.put(id, new Read(query, readNowMillis));
    return id;
  }

  Optional<Read> find(long id) {
    return Optional.ofNullable(reads.get(id));
  }

  Optional<Read> remove(long id) {
    return Optional.ofNullable(reads.remove(id));
  }

  int size() {
    return reads.size();
  }

  static Message message(long id) {
    return Message.valueOf(ByteString.copyFrom(ByteBuffer.allocate(Long.BYTES).putLong(0, id)));
  }

  static long id(Message message) {
    ByteString bytes = message.getContent();
    if (bytes.size() != Long.BYTES) {
      throw new IllegalArgumentException("read message has " + bytes.size() + " bytes, expected 8");
    }
    return bytes.asReadOnlyByteBuffer().getLong();
  }
}
