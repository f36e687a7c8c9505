package dev.ration.server.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.wire.ErrorCode;
import dev.ration.protocol.Frame;
import dev.ration.protocol.FrameDecoder;
import dev.ration.protocol.FrameEncoder;
import dev.ration.protocol.FrameError;
import dev.ration.protocol.Kind;
import dev.ration.protocol.MalformedMessageException;
import dev.ration.protocol.MessageCodec;
import dev.ration.wire.Outcome;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.server.config.EndpointOptions;
import dev.ration.server.consensus.CoordinatorException;
import dev.ration.statemachine.command.LeaseCommand.AcquireLease;
import dev.ration.statemachine.command.LeaseCommand.RenewLease;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.LeaseCommand.ReturnLease;
import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.lease.LimitStatus;
import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The connection pipeline (protocol FrameDecoder → FrameEncoder → ConnectionHandler) on an
 * EmbeddedChannel with a fake coordinator: every kind mapped to its command or query and back,
 * every error path, and that bad input either keeps or closes exactly this connection.
 */
class EndpointPipelineTest {
  private static final int MAX_FRAME = 4096;
  private static final EndpointOptions OPTIONS =
      new EndpointOptions(MAX_FRAME, 2, 10, Duration.ofSeconds(5), Duration.ofSeconds(30), 1, 256);
  private static final long CLIENT_HIGH = 0x1111;
  private static final long CLIENT_LOW = 0x2222;

  private final AtomicLong clock = new AtomicLong(1_000_000_000L);
  private FakeCoordinator coordinator;
  private AdmissionGate gate;
  private RecordingListener listener;
  private ConnectionHandler handler;
  private EmbeddedChannel ch;

  /** Remembers every answered request for assertions on what metrics would see. */
  static final class RecordingListener implements EndpointListener {
    final List<String> answered = new CopyOnWriteArrayList<>();
    final AtomicLong opened = new AtomicLong();
    final AtomicLong closed = new AtomicLong();

    @Override
    public void requestAnswered(String kind, ErrorCode code, String outcome, long latencyNanos) {
      answered.add(kind + "/" + code + "/" + outcome);
    }

    @Override
    public void connectionOpened() {
      opened.incrementAndGet();
    }

    @Override
    public void connectionClosed() {
      closed.incrementAndGet();
    }

    @Override
    public void connectionRefused() {}
  }

  @BeforeEach
  void setUp() {
    coordinator = new FakeCoordinator();
    gate = new AdmissionGate(OPTIONS);
    listener = new RecordingListener();
    handler = new ConnectionHandler(coordinator, new Translation(128), gate, listener, clock::get);
    ch = new EmbeddedChannel(FrameDecoder.forServer(MAX_FRAME), new FrameEncoder(MAX_FRAME), handler);
    ch.freezeTime();
  }

  @AfterEach
  void tearDown() {
    ch.finishAndReleaseAll();
  }

  // ---------------------------------------------------------------- helpers

  private void sendFrame(Frame f) {
    ByteBuf b = Unpooled.buffer();
    FrameEncoder.writeTo(f, b, Integer.MAX_VALUE);
    ch.writeInbound(b);
  }

  private void send(long requestId, int timeoutMillis, Request r) {
    sendFrame(MessageCodec.requestFrame(requestId, timeoutMillis, r));
  }

  private Frame readFrame() {
    ch.runPendingTasks();
    ByteBuf b = ch.readOutbound();
    assertNotNull(b, "expected a response frame");
    try {
      int length = b.readInt();
      assertEquals(length, b.readableBytes(), "length prefix vs bytes");
      int version = b.readUnsignedByte();
      int kind = b.readUnsignedByte();
      long requestId = b.readLong();
      byte[] payload = new byte[b.readableBytes()];
      b.readBytes(payload);
      return new Frame(version, kind, requestId, payload);
    } finally {
      b.release();
    }
  }

  private static Response decode(Frame f) {
    Kind k = f.kind() == FrameError.ERROR_RESPONSE_KIND ? Kind.HELLO : Kind.fromCode(f.kind());
    try {
      return MessageCodec.decodeResponse(k, f.payload());
    } catch (MalformedMessageException e) {
      throw new AssertionError("response does not decode: " + f, e);
    }
  }

  private Response read(long expectedRequestId) {
    Frame f = readFrame();
    assertEquals(expectedRequestId, f.requestId(), "echoed request id");
    return decode(f);
  }

  private Response.Error readError(long expectedRequestId, ErrorCode code) {
    Response r = read(expectedRequestId);
    Response.Error e = assertInstanceOf(Response.Error.class, r, "expected an error, got " + r);
    assertEquals(code, e.code(), e.message());
    return e;
  }

  private void noMoreOutput() {
    ch.runPendingTasks();
    Object o = ch.readOutbound();
    assertNull(o, "unexpected output " + o);
  }

  private void hello() {
    send(1, 0, new Request.Hello(Frame.PROTOCOL_VERSION, CLIENT_HIGH, CLIENT_LOW, new byte[0]));
    assertInstanceOf(Response.HelloReply.class, read(1));
  }

  private static Limit limit(long version) {
    return new Limit("acme", "api", 100, 50, Mode.HARD, 10_000, 2_000, 0, Policy.FREE_CAPACITY, version);
  }

  private static LeaseView lease(long id, long version) {
    return new LeaseView(id, "acme", "api", "eu-1", 3, version, 40, 20, 40, 20, 5_000, 15_000, 17_000, Mode.HARD, 0, 10_000);
  }

  private static Request.AcquireLease acquire() {
    return new Request.AcquireLease("acme", "api", "eu-1", 40, 20);
  }

  // ---------------------------------------------------------------- hello

  @Test
  void firstFrameMustBeHello() {
    send(5, 0, new Request.ListLimits(false));
    readError(5, ErrorCode.HELLO_REQUIRED);
    assertFalse(ch.isOpen(), "connection closed after a non-HELLO first frame");
    assertTrue(coordinator.asked.isEmpty());
  }

  @Test
  void helloReplyNamesNodeVersionAndLeader() {
    send(1, 0, new Request.Hello(Frame.PROTOCOL_VERSION, CLIENT_HIGH, CLIENT_LOW, new byte[0]));
    Frame f = readFrame();
    assertEquals(Kind.HELLO.responseCode(), f.kind());
    Response.HelloReply h = assertInstanceOf(Response.HelloReply.class, decode(f));
    assertEquals(new Response.HelloReply("n1", Frame.PROTOCOL_VERSION, true, "127.0.0.1:7001"), h);
    assertTrue(ch.isOpen());
  }

  @Test
  void helloOnFollowerNamesTheLeader() {
    coordinator.status = FakeCoordinator.status("FOLLOWER", "n2", "127.0.0.1:7002", 7, 10, 10);
    send(1, 0, new Request.Hello(Frame.PROTOCOL_VERSION, CLIENT_HIGH, CLIENT_LOW, new byte[0]));
    Response.HelloReply h = assertInstanceOf(Response.HelloReply.class, read(1));
    assertFalse(h.leader());
    assertEquals("127.0.0.1:7002", h.leaderAddress());
  }

  @Test
  void secondHelloIsRefusedButConnectionStays() {
    hello();
    send(2, 0, new Request.Hello(Frame.PROTOCOL_VERSION, CLIENT_HIGH, CLIENT_LOW, new byte[0]));
    readError(2, ErrorCode.HELLO_REQUIRED);
    assertTrue(ch.isOpen());
  }

  @Test
  void helloWithUnknownProtocolVersionClosesTheConnection() {
    send(1, 0, new Request.Hello(9, CLIENT_HIGH, CLIENT_LOW, new byte[0]));
    readError(1, ErrorCode.UNSUPPORTED_VERSION);
    assertFalse(ch.isOpen());
  }

  @Test
  void helloWithZeroClientIdIsInvalid() {
    send(1, 0, new Request.Hello(Frame.PROTOCOL_VERSION, 0, 0, new byte[0]));
    readError(1, ErrorCode.INVALID_ARGUMENT);
    // Still no hello: the next non-HELLO frame is refused.
    send(2, 0, new Request.ListLimits(false));
    readError(2, ErrorCode.HELLO_REQUIRED);
  }

  // ---------------------------------------------------------------- mutations

  @Test
  void setLimitIsProposedUnderTheConnectionKeyAndAnswered() {
    hello();
    send(42, 0, new Request.SetLimit(new Limit("acme", "api", 100, 50, Mode.BEST_EFFORT, 10_000, 2_000, 7, Policy.FREE_CAPACITY, 3)));
    assertEquals(1, coordinator.submitted.size());
    FakeCoordinator.Submitted s = coordinator.submitted.get(0);
    assertEquals(new RequestKey(CLIENT_HIGH, CLIENT_LOW, 42), s.key());
    assertEquals(
        new SetLimit(new Limit("acme", "api", 100, 50, Mode.BEST_EFFORT, 10_000, 2_000, 7, Policy.FREE_CAPACITY, 3)),
        s.command());
    assertEquals(clock.get() + Duration.ofSeconds(5).toNanos(), s.deadlineNanos(), "default deadline");
    noMoreOutput();

    s.answer().complete(new Result.LimitSet(limit(4)));
    Response.SetLimitReply r = assertInstanceOf(Response.SetLimitReply.class, read(42));
    assertEquals(Outcome.SUCCESS, r.outcome());
    assertEquals(4, r.currentVersion());
    assertEquals("acme", r.limit().limit().tenant());
    assertEquals(100, r.limit().limit().ratePerSecond());
    assertEquals(4, r.limit().limit().version());
    assertEquals(0, handler.pendingCount());
    assertEquals(0, gate.inFlight());
  }

  @Test
  void acquireRenewReturnMapToCommandsAndBack() {
    hello();
    send(10, 0, acquire());
    send(11, 0, new Request.RenewLease(77, 2, 30, 10, 25, 5, 0));
    assertEquals(new AcquireLease("acme", "api", "eu-1", 40, 20), coordinator.submitted.get(0).command());
    assertEquals(new RenewLease(77, 2, 30, 10, 25, 5, 0), coordinator.submitted.get(1).command());

    coordinator.submitted.get(0).answer().complete(new Result.LeaseGranted(lease(77, 1), 6));
    Response.LeaseReply granted = assertInstanceOf(Response.LeaseReply.class, read(10));
    assertEquals(Outcome.SUCCESS, granted.outcome());
    assertEquals(77, granted.lease().leaseId());
    assertEquals(40, granted.lease().rateShare());
    assertEquals(6, granted.startBalance());

    coordinator.submitted.get(1).answer().complete(new Result.LeaseRenewed(lease(77, 3)));
    Response.LeaseReply renewed = assertInstanceOf(Response.LeaseReply.class, read(11));
    assertEquals(3, renewed.lease().version());
    assertEquals(3, renewed.currentVersion());

    send(12, 0, new Request.ReturnLease(77, 3, 9));
    assertEquals(new ReturnLease(77, 3, 9), coordinator.submitted.get(2).command());
    coordinator.submitted.get(2).answer().complete(new Result.LeaseReturned(77, 9, false));
    assertEquals(
        new Response.ReturnReply(Outcome.SUCCESS, "", 77, 9, false), read(12));
  }

  @Test
  void rejectionsTravelAsOutcomesInOkReplies() {
    hello();
    send(20, 0, acquire());
    coordinator.submitted.get(0).answer().complete(
        new Result.Rejected(dev.ration.wire.Outcome.LIMIT_EXHAUSTED, "no free rate", 250, 0));
    Response.LeaseReply l = assertInstanceOf(Response.LeaseReply.class, read(20));
    assertEquals(Outcome.LIMIT_EXHAUSTED, l.outcome());
    assertEquals("no free rate", l.message());
    assertEquals(250, l.retryAfterMillis());
    assertNull(l.lease());

    send(21, 0, new Request.SetLimit(new Limit("acme", "api", 1, 1, Mode.HARD, 1_000, 0, 0, Policy.FREE_CAPACITY, 2)));
    coordinator.submitted.get(1).answer().complete(
        new Result.Rejected(dev.ration.wire.Outcome.STALE_CONFIG, "stale", 0, 9));
    Response.SetLimitReply s = assertInstanceOf(Response.SetLimitReply.class, read(21));
    assertEquals(Outcome.STALE_CONFIG, s.outcome());
    assertEquals(9, s.currentVersion());

    send(22, 0, new Request.ReturnLease(55, 1, 0));
    coordinator.submitted.get(2).answer().complete(
        new Result.Rejected(dev.ration.wire.Outcome.LEASE_UNKNOWN, "no lease 55", 0, 0));
    assertEquals(new Response.ReturnReply(Outcome.LEASE_UNKNOWN, "no lease 55", 55, 0, false), read(22));

    assertTrue(listener.answered.contains("ACQUIRE_LEASE/OK/LIMIT_EXHAUSTED"), listener.answered.toString());
  }

  @Test
  void everyStateMachineOutcomeHasTheSameWireNumber() {
    for (dev.ration.wire.Outcome o : dev.ration.wire.Outcome.values()) {
      assertEquals(o.name(), Translation.wireOutcome(o).name());
    }
  }

  // ---------------------------------------------------------------- reads

  @Test
  void readsMapToQueriesWithTheirStaleFlag() {
    hello();
    send(30, 0, new Request.GetLimit("acme", "api", true));
    send(31, 0, new Request.ListLimits(false));
    assertEquals(new Query.GetLimit("acme", "api"), coordinator.asked.get(0).query());
    assertTrue(coordinator.asked.get(0).stale());
    assertEquals(new Query.ListLimits(), coordinator.asked.get(1).query());
    assertFalse(coordinator.asked.get(1).stale());

    LimitStatus st = new LimitStatus(limit(4), 40, 20, 30, 20, 5, 1, 1, 100, 50, 0);
    coordinator.asked.get(0).answer().complete(new QueryResult.LimitAnswer(Optional.of(st)));
    Response.GetLimitReply g = assertInstanceOf(Response.GetLimitReply.class, read(30));
    assertTrue(g.found());
    assertEquals(40, g.limit().countedRate());
    assertEquals(30, g.limit().grantedRate());
    assertEquals(5, g.limit().pool());

    coordinator.asked.get(1).answer().complete(new QueryResult.LimitList(List.of(st, st)));
    assertEquals(2, assertInstanceOf(Response.LimitList.class, read(31)).limits().size());

    send(32, 0, new Request.GetLimit("acme", "nope", false));
    coordinator.asked.get(2).answer().complete(new QueryResult.LimitAnswer(Optional.empty()));
    assertFalse(assertInstanceOf(Response.GetLimitReply.class, read(32)).found());

    send(33, 0, new Request.ListLeases("", "", false));
    assertEquals(new Query.ListLeases("", ""), coordinator.asked.get(3).query());
    coordinator.asked.get(3).answer().complete(new QueryResult.LeaseList(List.of(lease(1, 1), lease(2, 1))));
    Response.LeaseList leases = assertInstanceOf(Response.LeaseList.class, read(33));
    assertEquals(List.of(1L, 2L), leases.leases().stream().map(LeaseView::leaseId).toList());
  }

  @Test
  void clusterStatusIsAnsweredLocally() {
    hello();
    send(40, 0, new Request.ClusterStatus());
    Response.ClusterStatusReply c = assertInstanceOf(Response.ClusterStatusReply.class, read(40));
    assertEquals("n1", c.serverId());
    assertEquals("LEADER", c.role());
    assertEquals(120, c.commitIndex());
    assertEquals(118, c.appliedIndex());
    assertEquals(3, c.peers().size());
    assertEquals("127.0.0.1:7002", c.peers().get(1).clientAddress());
    assertTrue(coordinator.asked.isEmpty() && coordinator.submitted.isEmpty());
  }

  @Test
  void replyTooLargeForAFrameBecomesAnError() {
    hello();
    send(50, 0, new Request.ListLeases("", "", false));
    List<LeaseView> many = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      many.add(lease(i + 1, 1));
    }
    coordinator.asked.get(0).answer().complete(new QueryResult.LeaseList(many));
    Response.Error e = readError(50, ErrorCode.INVALID_ARGUMENT);
    assertTrue(e.message().contains("max frame"), e.message());
    assertTrue(ch.isOpen());
  }

  // ---------------------------------------------------------------- validation

  @Test
  void invalidArgumentsAreRefusedBeforeProposing() {
    hello();
    send(60, 0, new Request.AcquireLease("", "api", "eu-1", 1, 1));
    assertTrue(readError(60, ErrorCode.INVALID_ARGUMENT).message().contains("tenant"));
    send(61, 0, new Request.SetLimit(new Limit("acme", "api", -1, 1, Mode.HARD, 1_000, 0, 0, Policy.FREE_CAPACITY, 0)));
    assertTrue(readError(61, ErrorCode.INVALID_ARGUMENT).message().contains("ratePerSecond -1"));
    send(62, 0, new Request.RenewLease(1, 1, -5, 0, 0, 0, 0));
    assertTrue(readError(62, ErrorCode.INVALID_ARGUMENT).message().contains("demandRatePerSecond -5"));
    send(63, 0, new Request.AcquireLease("acme", "x".repeat(129), "eu-1", 1, 1));
    readError(63, ErrorCode.INVALID_ARGUMENT);
    send(64, 0, new Request.ListLeases("acme", "", false));
    readError(64, ErrorCode.INVALID_ARGUMENT);
    assertTrue(coordinator.submitted.isEmpty() && coordinator.asked.isEmpty());
    assertTrue(ch.isOpen());
  }

  // ---------------------------------------------------------------- coordinator errors

  @Test
  void notLeaderCarriesTheLeaderClientAddress() {
    hello();
    send(70, 0, acquire());
    coordinator.submitted.get(0).answer().completeExceptionally(
        new CoordinatorException(CoordinatorException.Reason.NOT_LEADER, "not the leader", "10.0.0.2:7000", 0, false));
    Response.Error e = readError(70, ErrorCode.NOT_LEADER);
    assertEquals("10.0.0.2:7000", e.leaderAddress());
  }

  @Test
  void coordinatorOverloadAndUnavailabilityMapToErrors() {
    hello();
    send(71, 0, acquire());
    send(72, 0, acquire());
    coordinator.submitted.get(0).answer().completeExceptionally(
        new CoordinatorException(CoordinatorException.Reason.OVERLOADED, "queue full", "", 35, false));
    assertEquals(35, readError(71, ErrorCode.OVERLOADED).retryAfterMillis());
    coordinator.submitted.get(1).answer().completeExceptionally(
        new CoordinatorException(CoordinatorException.Reason.UNAVAILABLE, "no leader", "", 500, true));
    assertEquals(500, readError(72, ErrorCode.UNAVAILABLE).retryAfterMillis());
    send(73, 0, acquire());
    coordinator.submitted.get(2).answer().completeExceptionally(
        new CoordinatorException(CoordinatorException.Reason.DEADLINE_EXCEEDED, "late", "", 0, false));
    readError(73, ErrorCode.DEADLINE_EXCEEDED);
    send(74, 0, acquire());
    coordinator.submitted.get(3).answer().completeExceptionally(new IllegalStateException("bug"));
    readError(74, ErrorCode.INTERNAL);
    assertEquals(0, gate.inFlight());
  }

  @Test
  void inFlightCapAnswersOverloadedImmediately() {
    hello();
    send(80, 0, acquire());
    send(81, 0, acquire());
    send(82, 0, acquire());
    Response.Error e = readError(82, ErrorCode.OVERLOADED);
    assertTrue(e.retryAfterMillis() > 0);
    assertEquals(2, coordinator.submitted.size(), "the third request never reached the coordinator");
    assertEquals(2, handler.pendingCount());

    coordinator.submitted.get(0).answer().complete(new Result.LeaseGranted(lease(1, 1), 0));
    read(80);
    send(83, 0, acquire());
    assertEquals(3, coordinator.submitted.size(), "a freed slot admits the next request");
    assertTrue(listener.answered.contains("ACQUIRE_LEASE/OVERLOADED/NONE"));
  }

  @Test
  void deadlineAnswersEvenIfTheCoordinatorNeverDoes() {
    hello();
    send(90, 100, acquire());
    assertEquals(clock.get() + TimeUnit.MILLISECONDS.toNanos(100), coordinator.submitted.get(0).deadlineNanos());
    noMoreOutput();
    ch.advanceTimeBy(100, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
    readError(90, ErrorCode.DEADLINE_EXCEEDED);
    assertEquals(0, gate.inFlight());
    // The late answer is dropped: one request, one answer.
    coordinator.submitted.get(0).answer().complete(new Result.LeaseGranted(lease(1, 1), 0));
    noMoreOutput();
  }

  @Test
  void deadlineIsCappedAtTheMaximum() {
    hello();
    send(91, 600_000, acquire());
    assertEquals(clock.get() + Duration.ofSeconds(30).toNanos(), coordinator.submitted.get(0).deadlineNanos());
    assertEquals(Duration.ofSeconds(30).toNanos(),
        ConnectionHandler.timeoutNanos(600_000, OPTIONS.defaultDeadline(), OPTIONS.maxDeadline()));
    assertEquals(Duration.ofSeconds(5).toNanos(),
        ConnectionHandler.timeoutNanos(0, OPTIONS.defaultDeadline(), OPTIONS.maxDeadline()));
  }

  @Test
  void answersArriveInCompletionOrder() {
    hello();
    send(100, 0, acquire());
    send(101, 0, new Request.ListLimits(false));
    coordinator.asked.get(0).answer().complete(new QueryResult.LimitList(List.of()));
    assertInstanceOf(Response.LimitList.class, read(101));
    coordinator.submitted.get(0).answer().complete(new Result.LeaseGranted(lease(1, 1), 0));
    assertInstanceOf(Response.LeaseReply.class, read(100));
  }

  // ---------------------------------------------------------------- bad input

  @Test
  void malformedPayloadKeepsTheConnection() {
    hello();
    sendFrame(new Frame(Frame.PROTOCOL_VERSION, Kind.ACQUIRE_LEASE.code(), 110, new byte[] {0, 0, 0, 0, 0, 9, 'a'}));
    readError(110, ErrorCode.MALFORMED);
    assertTrue(ch.isOpen());
    send(111, 0, new Request.ClusterStatus());
    assertInstanceOf(Response.ClusterStatusReply.class, read(111));
  }

  @Test
  void oversizedFrameIsRefusedAndClosed() {
    hello();
    ByteBuf b = Unpooled.buffer();
    b.writeInt(MAX_FRAME + 1).writeByte(Frame.PROTOCOL_VERSION).writeByte(Kind.ACQUIRE_LEASE.code()).writeLong(120);
    ch.writeInbound(b);
    readError(120, ErrorCode.FRAME_TOO_LARGE);
    assertFalse(ch.isOpen());
  }

  @Test
  void unknownFrameVersionIsRefusedAndClosed() {
    hello();
    sendFrame(new Frame(7, Kind.LIST_LIMITS.code(), 130, new byte[] {0, 0, 0, 0, 0}));
    readError(130, ErrorCode.UNSUPPORTED_VERSION);
    assertFalse(ch.isOpen());
  }

  @Test
  void unknownKindIsRefusedAndTheConnectionStays() {
    hello();
    sendFrame(new Frame(Frame.PROTOCOL_VERSION, 0x3F, 140, new byte[] {0, 0, 0, 0}));
    Frame f = readFrame();
    assertEquals(140, f.requestId());
    assertEquals(ErrorCode.UNKNOWN_KIND, assertInstanceOf(Response.Error.class, decode(f)).code());
    assertTrue(ch.isOpen());
    send(141, 0, new Request.ClusterStatus());
    assertInstanceOf(Response.ClusterStatusReply.class, read(141));
  }

  @Test
  void garbageClosesTheConnection() {
    hello();
    ch.writeInbound(Unpooled.wrappedBuffer("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
    Response.Error e = assertInstanceOf(Response.Error.class, decode(readFrame()));
    assertEquals(ErrorCode.FRAME_TOO_LARGE, e.code());
    assertFalse(ch.isOpen());
  }

  @Test
  void shortLengthGarbageIsMalformedAndCloses() {
    ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 3, 1, 2, 3}));
    Frame f = readFrame();
    assertEquals(0, f.requestId(), "request id unknown");
    assertEquals(ErrorCode.MALFORMED, assertInstanceOf(Response.Error.class, decode(f)).code());
    assertFalse(ch.isOpen());
  }

  // ---------------------------------------------------------------- lifecycle

  @Test
  void closingReleasesInFlightAndDropsLateAnswers() {
    hello();
    send(150, 0, acquire());
    send(151, 0, acquire());
    assertEquals(2, gate.inFlight());
    ch.close();
    assertEquals(0, gate.inFlight());
    assertEquals(1, listener.closed.get());
    coordinator.submitted.get(0).answer().complete(new Result.LeaseGranted(lease(1, 1), 0));
    ch.runPendingTasks();
    assertEquals(0, gate.inFlight());
  }

  @Test
  void drainingRefusesNewRequestsAndFailAllAnswersPendingOnes() {
    hello();
    send(160, 0, acquire());
    gate.startDraining();
    send(161, 0, acquire());
    readError(161, ErrorCode.UNAVAILABLE);
    assertEquals(1, coordinator.submitted.size());
    assertEquals(1, gate.failAll(ErrorCode.UNAVAILABLE, "shutting down", 1_000));
    Response.Error e = readError(160, ErrorCode.UNAVAILABLE);
    assertEquals("shutting down", e.message());
    assertEquals(0, gate.inFlight());
  }
}
