package dev.ration.server.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.RationClient;
import dev.ration.client.transport.RawClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.RationFailedException;
import dev.ration.protocol.CancelOutcome;
import dev.ration.testkit.FreePorts;
import dev.ration.wire.ErrorCode;
import dev.ration.protocol.Frame;
import dev.ration.protocol.FrameEncoder;
import dev.ration.protocol.Kind;
import dev.ration.protocol.MessageCodec;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.protocol.TtlRequest;
import dev.ration.protocol.TtlResponse;
import dev.ration.server.RationNode;
import dev.ration.server.config.EndpointOptions;
import dev.ration.server.config.ServerConfig;
import dev.ration.server.consensus.ConsensusOptions;
import dev.ration.server.consensus.GroupCommitStats;
import dev.ration.server.consensus.Peer;
import dev.ration.statemachine.StateOptions;
import dev.ration.testkit.Waits;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests withdrawn before they reach Raft, on a real single-node cluster over real sockets:
 * a closed connection's queued commands are never proposed, and a CANCEL frame withdraws a queued
 * request (answered CANCELLED, never applied) but not one already proposed (TOO_LATE).
 *
 * <p>The node proposes one command per Raft entry with one entry in flight, so a burst of
 * pipelined writes queues for as long as that many fsyncs take: writes at the end of a burst of
 * hundreds are certainly still queued when the frame right behind them arrives.
 */
class CancelNodeTest {
  private static final int BURST = 1_000;

  @TempDir Path dir;
  private ServerConfig config;
  private RationNode node;

  @BeforeEach
  void start() throws Exception {
    String client = "127.0.0.1:" + FreePorts.next();
    String admin = "127.0.0.1:" + FreePorts.next();
    Peer self = new Peer("n1", "127.0.0.1:" + FreePorts.next(), client, admin);
    ConsensusOptions consensus = new ConsensusOptions(
        "n1", UUID.nameUUIDFromBytes("cancel-test".getBytes()).toString(), List.of(self), dir,
        Duration.ofMillis(300), Duration.ofMillis(600), Duration.ofSeconds(3),
        100_000, 0, 1 << 20,
        1, 64 << 10, Duration.ZERO, 1, 16_384,
        Duration.ofMillis(100), 100, StateOptions.defaults());
    EndpointOptions endpoint = new EndpointOptions(
        1 << 20, 4 * BURST, 16, Duration.ofSeconds(60), Duration.ofSeconds(60), 1, 4 * BURST);
    config = new ServerConfig(consensus, client, admin, endpoint, Duration.ofSeconds(2));
    node = RationNode.start(config);
    try (EndpointSocketTest.Conn conn = conn(0x100)) {
      AtomicLong ids = new AtomicLong(10);
      // Bounded: the single node elects itself within seconds; until then writes are refused.
      Waits.upTo(Duration.ofSeconds(60)).every(Duration.ofMillis(100)).until("a first write", () -> {
        conn.send(ids.getAndIncrement(), put("warm", "up"));
        return conn.read(Kind.TTL_PUT);
      }, r -> r instanceof Response.Ttl);
    }
  }

  @AfterEach
  void stop() throws Exception {
    node.shutdown();
    node.awaitTermination(Duration.ofSeconds(30));
  }

  @Test
  void aClosedConnectionsQueuedCommandsAreNeverProposed() throws Exception {
    GroupCommitStats before = node.consensus().proposerStats();
    EndpointSocketTest.Conn conn = conn(0x200);
    ByteArrayOutputStream burst = new ByteArrayOutputStream();
    for (int i = 0; i < BURST; i++) {
      append(burst, 100 + i, put("closed", key(i)));
    }
    conn.out.write(burst.toByteArray());
    conn.out.flush();
    // A FIN behind the burst: the server reads every frame, then sees the connection end. (A
    // close with replies unread would send a reset, and the kernel could discard frames the
    // server had not read yet.)
    conn.socket.shutdownOutput();

    // Every write of the burst ends proposed, withdrawn or refused; none is left waiting.
    GroupCommitStats after = Waits.upTo(Duration.ofSeconds(120)).every(Duration.ofMillis(50)).until(
        "every write of the burst disposed of", () -> node.consensus().proposerStats(),
        s -> s.queueDepth() == 0 && s.entriesInFlight() == 0
            && (s.commandsProposed() - before.commandsProposed())
                + (s.withdrawn() - before.withdrawn()) + dropped(s, before) == BURST);
    long withdrawn = after.withdrawn() - before.withdrawn();
    long proposed = after.commandsProposed() - before.commandsProposed();
    int stored = count("closed");
    assertTrue(withdrawn > 0, "the close withdrew queued commands");
    assertEquals(stored, proposed, "every proposed command applied, and nothing else");
    assertEquals(0, dropped(after, before), "nothing refused or expired");
    conn.close();
  }

  @Test
  void cancelWithdrawsAQueuedWriteButNotAProposedOne() throws Exception {
    try (EndpointSocketTest.Conn conn = conn(0x300)) {
      ByteArrayOutputStream frames = new ByteArrayOutputStream();
      // The first write of an idle node is proposed at once; a CANCEL right behind it is late.
      append(frames, 100, put("cancel", "first"));
      append(frames, 101, new Request.Cancel(100));
      for (int i = 0; i < 300; i++) {
        append(frames, 200 + i, put("cancel", key(i)));
      }
      append(frames, 102, new Request.Cancel(499));
      append(frames, 103, new Request.Cancel(123_456));
      conn.out.write(frames.toByteArray());
      conn.out.flush();

      Map<Long, Response> replies = new HashMap<>();
      for (int i = 0; i < 304; i++) {
        long[] id = new long[1];
        Response r = readWithId(conn, id);
        replies.put(id[0], r);
      }
      assertEquals(CancelOutcome.TOO_LATE, cancelOutcome(replies.get(101L)));
      assertInstanceOf(Response.Ttl.class, replies.get(100L), "the proposed write ran its course");
      assertEquals(CancelOutcome.CANCELLED, cancelOutcome(replies.get(102L)));
      Response.Error withdrawn = assertInstanceOf(Response.Error.class, replies.get(499L));
      assertEquals(ErrorCode.CANCELLED, withdrawn.code());
      assertTrue(withdrawn.code().definite());
      assertEquals(CancelOutcome.NOT_FOUND, cancelOutcome(replies.get(103L)));
      assertFalse(keys("cancel").contains(key(299)), "the withdrawn write never applied");
      assertTrue(keys("cancel").contains(key(298)));
      assertEquals(300, count("cancel"), "first + 299 of the burst");
    }
  }

  @Test
  void cancellingTheClientsFutureWithdrawsTheRequestOnTheServer() throws Exception {
    try (RationClient client = new RationClient(RationClientOptions.builder()
        .addresses(List.of(config.clientAddress())).requestDeadline(Duration.ofSeconds(60)).build())) {
      // Connected first, so each call below is handed to the connection's event loop at once.
      RawClient.of(client).call(put("client-warm", "k"), Duration.ofSeconds(60)).get(60, TimeUnit.SECONDS);
      long withdrawnBefore = node.consensus().proposerStats().withdrawn();
      List<CompletableFuture<Response>> writes = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        writes.add(RawClient.of(client).call(put("client", key(i)), Duration.ofSeconds(60)));
      }
      // The event loop writes requests in order before it reads a reply: once the first write
      // is answered, all 300 were sent, and the last waits behind ~298 entries on the node.
      writes.get(0).get(60, TimeUnit.SECONDS);
      CompletableFuture<Response> last = writes.get(writes.size() - 1);
      assertTrue(last.cancel(false));
      for (int i = 0; i < writes.size() - 1; i++) {
        assertInstanceOf(Response.Ttl.class, writes.get(i).get(60, TimeUnit.SECONDS));
      }
      // The CANCEL follows the write on its connection; the write behind 298 others was queued.
      Waits.upTo(Duration.ofSeconds(30)).every(Duration.ofMillis(20)).until(
          "the server to withdraw the cancelled write",
          () -> node.consensus().proposerStats().withdrawn(), w -> w == withdrawnBefore + 1);
      assertFalse(keys("client").contains(key(299)));
      assertEquals(299, count("client"));
    }
  }

  // ------------------------------------------------------------------ helpers

  private EndpointSocketTest.Conn conn(long clientLow) throws Exception {
    EndpointSocketTest.Conn conn = new EndpointSocketTest.Conn(Addresses.parse(config.clientAddress()));
    conn.socket.setSoTimeout(120_000);
    conn.hello(clientLow);
    return conn;
  }

  /** Commands the server read but refused before queueing (none expected here). */
  private static long dropped(GroupCommitStats after, GroupCommitStats before) {
    return (after.rejectedOverloaded() - before.rejectedOverloaded())
        + (after.droppedExpired() - before.droppedExpired());
  }

  private static Request put(String namespace, String key) {
    return new Request.Ttl(new TtlRequest.Put(namespace, key, new byte[] {1}, 600_000));
  }

  private static String key(int i) {
    return String.format("k%05d", i);
  }

  private static void append(ByteArrayOutputStream out, long requestId, Request r) {
    ByteBuf b = Unpooled.buffer();
    FrameEncoder.writeTo(MessageCodec.requestFrame(requestId, 0, r), b, Integer.MAX_VALUE);
    byte[] bytes = new byte[b.readableBytes()];
    b.readBytes(bytes);
    b.release();
    out.writeBytes(bytes);
  }

  private static Response readWithId(EndpointSocketTest.Conn conn, long[] id) throws Exception {
    int length = conn.in.readInt();
    byte[] rest = new byte[length];
    conn.in.readFully(rest);
    Kind kind = Kind.fromCode(rest[1] & 0xFF);
    id[0] = java.nio.ByteBuffer.wrap(rest, 2, 8).getLong();
    byte[] payload = new byte[length - Frame.HEADER_BYTES];
    System.arraycopy(rest, Frame.HEADER_BYTES, payload, 0, payload.length);
    return MessageCodec.decodeResponse(kind, payload);
  }

  private static CancelOutcome cancelOutcome(Response r) {
    return assertInstanceOf(Response.CancelReply.class, r).outcome();
  }

  private List<String> keys(String namespace) throws Exception {
    try (EndpointSocketTest.Conn conn = conn(0x400 + namespace.hashCode())) {
      conn.send(5, new Request.Ttl(new TtlRequest.List(namespace, "", 1000, false)));
      Response.Ttl reply = assertInstanceOf(Response.Ttl.class, conn.read(Kind.TTL_LIST));
      TtlResponse.ListReply list = assertInstanceOf(TtlResponse.ListReply.class, reply.response());
      assertFalse(list.truncated());
      return list.entries().stream().map(TtlResponse.EntryInfo::key).toList();
    }
  }

  private int count(String namespace) throws Exception {
    return keys(namespace).size();
  }
}
