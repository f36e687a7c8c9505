package dev.ration.client;

import dev.ration.client.time.LedgerTime;
import dev.ration.client.transport.RawClient;
import dev.ration.testkit.Waits;
import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import dev.ration.wire.lease.Limit;

import dev.ration.wire.lease.LimitStatus;
import dev.ration.wire.lease.LeaseView;
import dev.ration.client.limiter.LeaseInfo;
import dev.ration.client.limiter.LimitInfo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.wire.ErrorCode;
import dev.ration.protocol.Frame;
import dev.ration.protocol.Kind;
import dev.ration.wire.Outcome;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Goal: the client library's transport and retry rules against scripted fake servers on real
 * loopback sockets: HELLO first, leader following, one request id across retries, deadlines
 * and connection loss reported as indeterminate, backoff on OVERLOADED, out-of-order pipelined
 * replies matched by id.
 */
class RationClientTest {
  private static final Response.LeaseReply GRANTED =
      new Response.LeaseReply(Outcome.SUCCESS, "", 0, 1, null, 0);

  private static RationClientOptions.Builder options(String... addresses) {
    return RationClientOptions.builder()
        .addresses(List.of(addresses))
        .requestDeadline(Duration.ofSeconds(10))
        .connectTimeout(Duration.ofSeconds(5))
        .backoffBase(Duration.ofMillis(1))
        .backoffMax(Duration.ofMillis(20))
        .clientId(7, 9);
  }

  private static Response.SetLimitReply setOk() {
    return new Response.SetLimitReply(Outcome.SUCCESS, "", 1, null);
  }

  @Test
  void helloFirstThenRequestWithClientId() throws Exception {
    try (FakeServer a = new FakeServer((s, r) -> s.reply(r, GRANTED));
        RationClient c = new RationClient(options(a.address()).build())) {
      LeaseResult reply = c.acquireLease("t", "r", "h", 10, 1);
      assertEquals(Outcome.SUCCESS, reply.outcome());
      assertEquals(1, a.hellos.size());
      assertEquals(7, a.hellos.get(0).clientHigh());
      assertEquals(9, a.hellos.get(0).clientLow());
      assertEquals(Frame.PROTOCOL_VERSION, a.hellos.get(0).protocolVersion());
      assertTrue(a.received.get(0).requestId() >= 1);
    }
  }

  /**
   * Goal: a client that connects to a follower moves to the leader it names before sending
   * anything (a follower would forward the write, at the cost of a hop), and stays with the
   * follower, which forwards, when that leader cannot be reached.
   */
  @Test
  void aFollowerNamingTheLeaderIsLeftForItAndKeptWhenTheLeaderIsUnreachable() throws Exception {
    try (FakeServer leader = new FakeServer((s, r) -> s.reply(r, GRANTED));
        FakeServer follower = new FakeServer((s, r) -> s.reply(r, GRANTED))) {
      follower.leader = false;
      follower.leaderAddress = leader.address();
      try (RationClient c = new RationClient(options(follower.address()).build())) {
        assertEquals(Outcome.SUCCESS, c.acquireLease("t", "r", "h", 10, 1).outcome());
        assertEquals(1, leader.received.size(), "the request went to the leader");
        assertEquals(0, follower.received.size(), "none to the follower");
      }
    }
    int closedPort;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closedPort = s.getLocalPort();
    }
    try (FakeServer follower = new FakeServer((s, r) -> s.reply(r, GRANTED))) {
      follower.leader = false;
      follower.leaderAddress = "127.0.0.1:" + closedPort;
      try (RationClient c = new RationClient(options(follower.address()).build())) {
        assertEquals(Outcome.SUCCESS, c.acquireLease("t", "r", "h", 10, 1).outcome());
        assertEquals(Outcome.SUCCESS, c.acquireLease("t", "r", "h2", 10, 1).outcome());
        assertEquals(2, follower.received.size(), "served by the follower");
        assertEquals(1, follower.hellos.size(), "one connection, kept");
      }
    }
  }

  /**
   * Goal: a server of another protocol version is named as such, with both versions, as a
   * definite failure: whether it refuses this client's HELLO or accepts it answering its own
   * version, no request is sent to it.
   */
  @Test
  void otherProtocolVersionIsAFailureNamingBothVersions() throws Exception {
    try (FakeServer refusing = new FakeServer((s, r) -> s.reply(r, GRANTED));
        FakeServer newer = new FakeServer((s, r) -> s.reply(r, GRANTED))) {
      refusing.helloAnswer = new Response.Error(ErrorCode.UNSUPPORTED_VERSION,
          "HELLO protocol version 1 unsupported; this server speaks protocol version 2", "", 0);
      newer.helloAnswer = new Response.HelloReply("fake", 2, true, "");
      for (FakeServer server : List.of(refusing, newer)) {
        try (RationClient c = new RationClient(options(server.address()).build())) {
          RationException e = unwrap(RawClient.of(c).call(new Request.ListLimits(false), Duration.ofSeconds(5)));
          assertEquals(ErrorCode.UNSUPPORTED_VERSION, e.code(), e.getMessage());
          assertTrue(e.definite(), e.getMessage());
          assertTrue(e.getMessage().contains("speaks protocol version 2")
              && e.getMessage().contains("this client speaks protocol version " + Frame.PROTOCOL_VERSION), e.getMessage());
          assertEquals(0, server.received.size(), "nothing but HELLO was sent");
        }
      }
    }
  }

  @Test
  void followsLeaderRedirectAndResendsSameId() throws Exception {
    try (FakeServer leader = new FakeServer((s, r) -> s.reply(r, setOk()));
        FakeServer follower =
            new FakeServer((s, r) -> s.reply(r, new Response.Error(ErrorCode.NOT_LEADER, "go", leader.address(), 0)));
        RationClient c = new RationClient(options(follower.address()).build())) {
      SetLimitResult reply = c.setLimit(LimitSpec.builder("t", "r").ratePerSecond(5).burst(1).build());
      assertEquals(Outcome.SUCCESS, reply.outcome());
      assertEquals(1, follower.received.size());
      assertEquals(1, leader.received.size());
      assertEquals(follower.received.get(0).requestId(), leader.received.get(0).requestId());
      assertEquals(leader.address(), c.currentAddress());
    }
  }

  /**
   * Goal: a client bounced between two servers, each naming the other as leader, moves on every
   * call, yet writes at most one line per logging interval (and at least one): sixty moves in a
   * few seconds are one line, not sixty.
   */
  @Test
  void rapidReconnectsAreLoggedAtMostOncePerInterval() throws Exception {
    java.util.Set<Long> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
    java.util.concurrent.atomic.AtomicReference<String> aAddress = new java.util.concurrent.atomic.AtomicReference<>();
    java.util.concurrent.atomic.AtomicReference<String> bAddress = new java.util.concurrent.atomic.AtomicReference<>();
    CapturingLogger logger = new CapturingLogger("reconnects");
    int calls = 60;
    long start = System.nanoTime();
    // The first attempt of every call is refused NOT_LEADER naming the other server; the retry,
    // sent there, succeeds. So every call is one move.
    try (FakeServer a = new FakeServer((s, r) -> s.reply(r, seen.add(r.requestId())
            ? new Response.Error(ErrorCode.NOT_LEADER, "go", bAddress.get(), 0) : setOk()));
        FakeServer b = new FakeServer((s, r) -> s.reply(r, seen.add(r.requestId())
            ? new Response.Error(ErrorCode.NOT_LEADER, "go", aAddress.get(), 0) : setOk()))) {
      aAddress.set(a.address());
      bAddress.set(b.address());
      try (RationClient c = new RationClient(options(a.address()).build(), logger)) {
        for (int i = 0; i < calls; i++) {
          assertEquals(Outcome.SUCCESS,
              c.setLimit(LimitSpec.builder("t", "r" + i).ratePerSecond(5).burst(1).build()).outcome());
        }
      }
      assertEquals(2 * calls, a.received.size() + b.received.size(), "every call moved once");
    }
    long elapsed = System.nanoTime() - start;
    long allowed = 1 + elapsed / TimeUnit.SECONDS.toNanos(10);
    List<CapturingLogger.Line> lines = logger.lines;
    assertFalse(lines.isEmpty(), "the first move is logged");
    assertTrue(lines.size() <= allowed, lines.size() + " lines in " + elapsed / 1_000_000 + " ms: " + lines);
    assertTrue(lines.get(0).message().contains("does not lead; reconnecting to the leader it names"),
        lines.toString());
  }

  @Test
  void retryReusesRequestId() throws Exception {
    AtomicInteger n = new AtomicInteger();
    try (FakeServer a =
            new FakeServer(
                (s, r) -> {
                  if (n.getAndIncrement() == 0) {
                    s.reply(r, new Response.Error(ErrorCode.UNAVAILABLE, "no leader yet", "", 1));
                  } else {
                    s.reply(r, GRANTED);
                  }
                });
        RationClient c = new RationClient(options(a.address()).build())) {
      assertEquals(Outcome.SUCCESS, c.renewLease(RenewalReport.builder(1, 1).demand(1, 1).build()).outcome());
      assertEquals(2, a.received.size());
      assertEquals(a.received.get(0).requestId(), a.received.get(1).requestId());
    }
  }

  @Test
  void deadlineOnMutationIsIndeterminate() throws Exception {
    try (FakeServer a = new FakeServer((s, r) -> {});
        RationClient c = new RationClient(options(a.address()).build())) {
      CompletableFuture<Response> f =
          RawClient.of(c).call(new Request.AcquireLease("t", "r", "h", 1, 1), Duration.ofMillis(200));
      RationException e = unwrap(f);
      assertEquals(ErrorCode.DEADLINE_EXCEEDED, e.code());
      assertFalse(e.definite());
      assertInstanceOf(RationIndeterminateException.class, e);
      // A read that times out is definite: it cannot have had an effect.
      RationException read = unwrap(RawClient.of(c).call(new Request.ListLimits(false), Duration.ofMillis(200)));
      assertEquals(ErrorCode.DEADLINE_EXCEEDED, read.code());
      assertTrue(read.definite());
    }
  }

  /**
   * Answers every request but the first (left unanswered) as a node would: a WHOAMI probe with
   * its reply, anything else GRANTED; while {@code cut} is set, answers nothing at all.
   */
  private static FakeServer.Script silentToTheFirstRequest(java.util.concurrent.atomic.AtomicBoolean cut) {
    AtomicInteger calls = new AtomicInteger();
    return (s, r) -> {
      int n = calls.incrementAndGet();
      if (cut.get() || n == 1) {
        return;
      }
      s.reply(r, r.request() instanceof Request.WhoAmI
          ? new Response.WhoAmIReply("anonymous", "none", List.of()) : GRANTED);
    };
  }

  /**
   * Goal: a connection that answered nothing while a request's deadline ran out, nor the probe
   * sent then (a cut path, whose TCP would deliver only at a backed-off retransmission after
   * the heal), is closed, and the next call opens a new one.
   */
  @Test
  void aConnectionSilentThroughADeadlineAndItsProbeIsReplaced() throws Exception {
    java.util.concurrent.atomic.AtomicBoolean cut = new java.util.concurrent.atomic.AtomicBoolean(true);
    try (FakeServer a = new FakeServer(silentToTheFirstRequest(cut));
        RationClient c = new RationClient(options(a.address()).build())) {
      Request acquire = new Request.AcquireLease("t", "r", "h", 1, 1);
      RationException e = unwrap(RawClient.of(c).call(acquire, Duration.ofMillis(300)));
      assertEquals(ErrorCode.DEADLINE_EXCEEDED, e.code());
      Waits.upTo(Duration.ofSeconds(10)).every(Duration.ofMillis(5))
          .until("the probe unanswered, the connection closed",
              () -> a.count(Kind.WHOAMI) == 1 && !a.received.get(0).channel().isActive(), b -> b);
      cut.set(false);
      RawClient.of(c).call(acquire, Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
      assertTrue(a.received.get(0).channel() != a.received.get(a.received.size() - 1).channel(),
          "the call after the silent deadline went over the silent connection");
      assertEquals(2, a.hellos.size(), "one HELLO per connection");
    }
  }

  /**
   * Goal: a node slow to answer one request (no quorum, an election) but answering the probe
   * keeps its connection, and so does one that answered other requests meanwhile (no probe).
   */
  @Test
  void aConnectionThatAnswersTheProbeOrOthersIsKept() throws Exception {
    try (FakeServer a = new FakeServer(silentToTheFirstRequest(new java.util.concurrent.atomic.AtomicBoolean()));
        RationClient c = new RationClient(options(a.address()).build())) {
      Request acquire = new Request.AcquireLease("t", "r", "h", 1, 1);
      assertEquals(ErrorCode.DEADLINE_EXCEEDED,
          unwrap(RawClient.of(c).call(acquire, Duration.ofMillis(300))).code());
      Waits.upTo(Duration.ofSeconds(10)).every(Duration.ofMillis(5))
          .until("the probe", () -> a.count(Kind.WHOAMI), n -> n == 1);
      // Until past the probe's own deadline, failing at once if the connection closes.
      long pastProbe = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Connection.PROBE_MILLIS + 200);
      Waits.upTo(Duration.ofSeconds(10)).every(Duration.ofMillis(5))
          .until("past the probe's deadline, or the connection closed",
              () -> System.nanoTime() - pastProbe > 0 || !a.received.get(0).channel().isActive(),
              b -> b);
      assertTrue(a.received.get(0).channel().isActive(), "the connection that answered the probe was closed");
      RawClient.of(c).call(acquire, Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
      assertEquals(1, a.hellos.size(), "the connection that answered the probe was replaced");
    }
    try (FakeServer a = new FakeServer(silentToTheFirstRequest(new java.util.concurrent.atomic.AtomicBoolean()));
        RationClient c = new RationClient(options(a.address()).build())) {
      Request acquire = new Request.AcquireLease("t", "r", "h", 1, 1);
      CompletableFuture<Response> silent = RawClient.of(c).call(acquire, Duration.ofMillis(400));
      Waits.upTo(Duration.ofSeconds(10)).every(Duration.ofMillis(5))
          .until("the first request at the server", () -> a.received.size(), n -> n == 1);
      RawClient.of(c).call(acquire, Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
      assertEquals(ErrorCode.DEADLINE_EXCEEDED, unwrap(silent).code());
      assertEquals(0, a.count(Kind.WHOAMI), "a probe although the connection answered meanwhile");
      RawClient.of(c).call(acquire, Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
      assertEquals(1, a.hellos.size(), "the connection that answered was replaced");
    }
  }

  /**
   * Goal: a call's deadline is judged on the client's injected clock. The server answers the
   * first attempt OVERLOADED after the manual clock has been moved past the hour-long deadline:
   * the call fails DEADLINE_EXCEEDED at once, without a second attempt and without waiting out
   * any real time.
   */
  @Test
  void deadlineIsJudgedOnTheInjectedClock() throws Exception {
    java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(5_000);
    Duration deadline = Duration.ofHours(1);
    try (FakeServer a = new FakeServer((s, r) -> {
          now.addAndGet(deadline.plusSeconds(1).toNanos());
          s.reply(r, new Response.Error(ErrorCode.OVERLOADED, "busy", "", 0));
        });
        RationClient c = new RationClient(options(a.address()).maxRetries(5)
            .clock(now::get).requestDeadline(deadline).build())) {
      long start = System.nanoTime();
      CompletableFuture<Response> f = RawClient.of(c).call(new Request.ListLimits(false), deadline);
      java.util.concurrent.ExecutionException ee = assertThrows(
          java.util.concurrent.ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS));
      RationException e = assertInstanceOf(RationException.class, ee.getCause());
      assertEquals(ErrorCode.DEADLINE_EXCEEDED, e.code(), e.getMessage());
      assertTrue(e.definite(), "a read: " + e);
      assertEquals(1, a.received.size(), "no attempt after the deadline");
      assertTrue(System.nanoTime() - start < Duration.ofSeconds(5).toNanos(), "did not wait");
    }
  }

  @Test
  void connectionDropRetriesOnAnotherAddress() throws Exception {
    try (FakeServer dropper = new FakeServer((s, r) -> r.channel().close());
        FakeServer good = new FakeServer((s, r) -> s.reply(r, new Response.ReturnReply(Outcome.SUCCESS, "", 5, 3, false)));
        RationClient c = new RationClient(options(dropper.address(), good.address()).build())) {
      ReturnResult reply = c.returnLease(5, 2, 3);
      assertEquals(3, reply.credited());
      assertEquals(1, dropper.received.size());
      assertEquals(1, good.received.size());
      assertEquals(dropper.received.get(0).requestId(), good.received.get(0).requestId());
    }
  }

  /**
   * Goal: a call made while the cluster elects a leader keeps asking until one answers, within
   * its deadline, however many NOT_LEADER answers come first (maxRetries does not cut it short);
   * and with no leader for the whole deadline it fails definitely, saying no leader was found.
   */
  @Test
  void electionIsWaitedOutWithinTheDeadlineNotTheRetryCount() throws Exception {
    AtomicInteger asked = new AtomicInteger();
    try (FakeServer electing = new FakeServer((s, r) -> s.reply(r, asked.incrementAndGet() <= 12
            ? new Response.Error(ErrorCode.NOT_LEADER, "no leader yet", "", 0) : setOk()));
        RationClient c = new RationClient(options(electing.address()).maxRetries(2)
            .requestDeadline(java.time.Duration.ofSeconds(10)).build())) {
      c.setLimit(LimitSpec.builder("t", "r").ratePerSecond(5).burst(1).build());
      assertEquals(13, asked.get(), "twelve NOT_LEADER answers, then the leader's");
    }
    try (FakeServer noLeader = new FakeServer((s, r) -> s.reply(r,
            new Response.Error(ErrorCode.NOT_LEADER, "no leader yet", "", 0)));
        RationClient c = new RationClient(options(noLeader.address()).maxRetries(2)
            .requestDeadline(java.time.Duration.ofMillis(600)).build())) {
      long start = System.nanoTime();
      RationException e = assertThrows(RationException.class, () -> c.getLimit("t", "r"));
      assertEquals(ErrorCode.NOT_LEADER, e.code(), e.toString());
      assertTrue(e.definite(), e.toString());
      assertTrue(e.getMessage().contains("no leader found within the deadline"), e.getMessage());
      assertTrue(System.nanoTime() - start >= java.time.Duration.ofMillis(400).toNanos(),
          "it searched for most of its deadline");
    }
  }

  /**
   * Goal: a node removed from the configuration answers NOT_LEADER with a long retry-after. A
   * client that knows only that address fails at once, definitely, instead of asking it again
   * until its deadline; a client with another address goes there and succeeds.
   */
  @Test
  void aRemovedNodesRetryAfterEndsASingleAddressCallAndSendsOthersElsewhere() throws Exception {
    try (FakeServer removed = new FakeServer((s, r) -> s.reply(r,
            new Response.Error(ErrorCode.NOT_LEADER, "node was removed", "", 60_000)));
        FakeServer member = new FakeServer((s, r) -> s.reply(r, setOk()))) {
      try (RationClient alone = new RationClient(options(removed.address())
          .requestDeadline(Duration.ofSeconds(20)).build())) {
        long start = System.nanoTime();
        RationException e = assertThrows(RationException.class, () -> alone.getLimit("t", "r"));
        assertEquals(ErrorCode.NOT_LEADER, e.code(), e.toString());
        assertTrue(e.definite(), e.toString());
        assertTrue(e.getMessage().contains("node was removed"), e.getMessage());
        assertEquals(1, removed.received.size(), "asked once");
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(10).toNanos(),
            "did not wait out the 20 s deadline");
      }
      try (RationClient both = new RationClient(RationClientOptions.builder()
          .addresses(List.of(removed.address(), member.address())).maxRetries(0)
          .requestDeadline(Duration.ofSeconds(20)).build())) {
        SetLimitResult set = both.setLimit(LimitSpec.builder("t", "r").ratePerSecond(5).burst(1).build());
        assertEquals(Outcome.SUCCESS, set.outcome(), set.toString());
        assertEquals(1, member.received.size());
      }
    }
  }

  /**
   * Goal: a removed node's retry-after never stops a client from reaching a leader. A removed
   * follower that names the remaining leader is followed at once; and a client whose only
   * configured address is a follower, which led it to the leader that was then removed, goes
   * back to that follower (now leading) instead of giving up on the removed node's 60 s.
   */
  @Test
  void aRemovedNodesRetryAfterNeverHoldsBackAnotherAddress() throws Exception {
    try (FakeServer member = new FakeServer((s, r) -> s.reply(r, setOk()));
        FakeServer removed = new FakeServer((s, r) -> s.reply(r,
            new Response.Error(ErrorCode.NOT_LEADER, "node was removed", member.address(), 60_000)));
        RationClient c = new RationClient(options(removed.address()).maxRetries(0)
            .requestDeadline(Duration.ofSeconds(20)).build())) {
      SetLimitResult set = c.setLimit(LimitSpec.builder("t", "r").ratePerSecond(5).burst(1).build());
      assertEquals(Outcome.SUCCESS, set.outcome(), set.toString());
      assertEquals(1, member.received.size(), "followed the named leader");
    }
    try (FakeServer follower = new FakeServer((s, r) -> s.reply(r, setOk()))) {
      try (FakeServer removedLeader = new FakeServer((s, r) -> {
            follower.leader = true; // the remaining members elected it
            s.reply(r, new Response.Error(ErrorCode.NOT_LEADER, "node was removed", "", 60_000));
          })) {
        follower.leader = false;
        follower.leaderAddress = removedLeader.address();
        try (RationClient c = new RationClient(options(follower.address()).maxRetries(0)
            .requestDeadline(Duration.ofSeconds(20)).build())) {
          long start = System.nanoTime();
          SetLimitResult set = c.setLimit(LimitSpec.builder("t", "r").ratePerSecond(5).burst(1).build());
          assertEquals(Outcome.SUCCESS, set.outcome(), set.toString());
          assertEquals(1, removedLeader.received.size(), "the removed leader was asked once");
          assertEquals(1, follower.received.size(), "then its former follower answered");
          assertTrue(System.nanoTime() - start < Duration.ofSeconds(10).toNanos(), "no 60 s wait");
        }
      }
    }
  }

  /**
   * Goal: when the deadline passes while a resend after a refused connection waits its turn, the
   * DEADLINE_EXCEEDED carries that refusal as its cause, so a caller can say "cannot reach". The
   * client's clock runs a hundred times faster than real time, so the backoff outlasts the
   * deadline.
   */
  @Test
  void aDeadlineThatPassesDuringABackoffCarriesTheFailureItRetried() throws Exception {
    FakeServer gone = new FakeServer((s, r) -> {});
    String refused = gone.address();
    gone.close();
    long from = System.nanoTime();
    try (RationClient c = new RationClient(options(refused).maxRetries(100)
        .clock(() -> from + (System.nanoTime() - from) * 100)
        .requestDeadline(Duration.ofSeconds(10)).build())) {
      RationException e = assertThrows(RationException.class, () -> c.getLimit("t", "r"));
      assertEquals(ErrorCode.DEADLINE_EXCEEDED, e.code(), e.toString());
      Throwable t = e;
      boolean connectRefused = false;
      for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
        connectRefused |= t instanceof java.net.ConnectException;
      }
      assertTrue(connectRefused, "the refused connection is in the cause chain: " + e);
    }
  }

  /**
   * Goal: when the deadline passes while a resend waits out an election, the call fails with
   * what the members said, a definite NOT_LEADER, not DEADLINE_EXCEEDED. The client's clock runs
   * a hundred times faster than real time from the second call on, so on a connection already
   * open (the first call succeeds) the replies come back within the deadline and the third 50 ms pause between
   * resends outlasts it.
   */
  @Test
  void aDeadlineThatPassesDuringAnElectionWaitIsNotLeader() throws Exception {
    AtomicInteger asked = new AtomicInteger();
    java.util.concurrent.atomic.AtomicLong warpFrom = new java.util.concurrent.atomic.AtomicLong();
    try (FakeServer electing = new FakeServer((s, r) -> s.reply(r, asked.incrementAndGet() == 1
            ? setOk() : new Response.Error(ErrorCode.NOT_LEADER, "no leader yet", "", 0)));
        RationClient c = new RationClient(options(electing.address()).clock(() -> {
          long now = System.nanoTime();
          long from = warpFrom.get();
          return from == 0 ? now : from + (now - from) * 100;
        }).requestDeadline(Duration.ofSeconds(10)).build())) {
      c.setLimit(LimitSpec.builder("t", "r").ratePerSecond(5).burst(1).build());
      warpFrom.set(System.nanoTime());
      RationException e = assertThrows(RationException.class,
          () -> c.setLimit(LimitSpec.builder("t", "r").ratePerSecond(5).burst(1).build()));
      assertEquals(ErrorCode.NOT_LEADER, e.code(), e.toString());
      assertTrue(e.definite(), "nothing was proposed: " + e);
      assertTrue(e.getMessage().contains("no leader yet"), e.getMessage());
      assertTrue(e.getMessage().contains("no leader found within the deadline"), e.getMessage());
    }
  }

  /**
   * Goal: right after a leader dies its followers still name it; each pointer to the dead
   * address is refused, and those refusals are part of waiting out the election (bounded by
   * the deadline), not connection failures that spend maxRetries.
   */
  @Test
  void followersNamingADeadLeaderAreWaitedOutUntilTheNewOneAnswers() throws Exception {
    FakeServer gone = new FakeServer((s, r) -> {});
    String dead = gone.address();
    gone.close();
    AtomicInteger asked = new AtomicInteger();
    try (FakeServer follower = new FakeServer((s, r) -> s.reply(r, asked.incrementAndGet() <= 12
            ? new Response.Error(ErrorCode.NOT_LEADER, "leader is " + dead, dead, 0) : setOk()));
        RationClient c = new RationClient(options(follower.address()).maxRetries(2)
            .requestDeadline(java.time.Duration.ofSeconds(20)).build())) {
      c.setLimit(LimitSpec.builder("t", "r").ratePerSecond(5).burst(1).build());
      assertEquals(13, asked.get(), "twelve stale pointers to the dead leader, then the new leader");
    }
  }

  @Test
  void allAddressesDownFailsWithinRetryBudget() throws Exception {
    FakeServer gone = new FakeServer((s, r) -> {});
    String address = gone.address();
    gone.close();
    try (RationClient c = new RationClient(options(address).maxRetries(3).build())) {
      RationException e = assertThrows(RationException.class, () -> c.acquireLease("t", "r", "h", 1, 1));
      assertEquals(ErrorCode.UNAVAILABLE, e.code());
      assertTrue(e.definite(), "never written, so definitely not applied: " + e);
      assertEquals(java.time.Duration.ZERO, e.retryAfter(), "no server, no hint");
    }
  }

  @Test
  void overloadedBacksOffThenSucceeds() throws Exception {
    AtomicInteger n = new AtomicInteger();
    try (FakeServer a =
            new FakeServer(
                (s, r) -> {
                  if (n.getAndIncrement() < 2) {
                    s.reply(r, new Response.Error(ErrorCode.OVERLOADED, "busy", "", 5));
                  } else {
                    s.reply(r, GRANTED);
                  }
                });
        RationClient c = new RationClient(options(a.address()).build())) {
      assertEquals(Outcome.SUCCESS, c.acquireLease("t", "r", "h", 1, 1).outcome());
      assertEquals(3, a.received.size());
      assertEquals(1, a.received.stream().map(FakeServer.Received::requestId).distinct().count());
      assertEquals(1, a.hellos.size(), "OVERLOADED keeps the connection");
    }
  }

  @Test
  void overloadedExhaustsRetriesAsDefiniteFailure() throws Exception {
    try (FakeServer a = new FakeServer((s, r) -> s.reply(r, new Response.Error(ErrorCode.OVERLOADED, "busy", "", 1)));
        RationClient c = new RationClient(options(a.address()).maxRetries(2).build())) {
      RationException e = assertThrows(RationException.class, () -> c.acquireLease("t", "r", "h", 1, 1));
      assertEquals(ErrorCode.OVERLOADED, e.code());
      assertTrue(e.definite());
      assertEquals(java.time.Duration.ofMillis(1), e.retryAfter(), "the server's hint");
      assertEquals(3, a.received.size());
    }
  }

  @Test
  void pipelinedRepliesOutOfOrderAreMatchedById() throws Exception {
    List<FakeServer.Received> held = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (FakeServer a =
            new FakeServer(
                (s, r) -> {
                  held.add(r);
                  if (held.size() == 3) {
                    for (int i = 2; i >= 0; i--) {
                      Request.GetLimit g = (Request.GetLimit) held.get(i).request();
                      s.reply(held.get(i), new Response.GetLimitReply(true, limit(g.tenant())));
                    }
                  }
                });
        RationClient c = new RationClient(options(a.address()).build())) {
      CompletableFuture<Optional<LimitInfo>> x = c.getLimitAsync("x", "r");
      CompletableFuture<Optional<LimitInfo>> y = c.getLimitAsync("y", "r");
      CompletableFuture<Optional<LimitInfo>> z = c.getLimitAsync("z", "r");
      assertEquals("x", x.join().orElseThrow().tenant());
      assertEquals("y", y.join().orElseThrow().tenant());
      assertEquals("z", z.join().orElseThrow().tenant());
      assertEquals(1, a.hellos.size(), "one connection carries all three");
      assertEquals(3, a.received.stream().map(FakeServer.Received::requestId).distinct().count());
    }
  }

  @Test
  void explicitRequestIdIsSentAsIs() throws Exception {
    try (FakeServer a = new FakeServer((s, r) -> s.reply(r, GRANTED));
        RationClient c = new RationClient(options(a.address()).build())) {
      RawClient.of(c).call(12345, new Request.AcquireLease("t", "r", "h", 1, 1), Duration.ofSeconds(5)).join();
      RawClient.of(c).call(12345, new Request.AcquireLease("t", "r", "h", 1, 1), Duration.ofSeconds(5)).join();
      assertEquals(List.of(12345L, 12345L), a.received.stream().map(FakeServer.Received::requestId).toList());
    }
  }

  @Test
  void nonRetryableErrorIsDefiniteAndNotRetried() throws Exception {
    try (FakeServer a = new FakeServer((s, r) -> s.reply(r, new Response.Error(ErrorCode.INVALID_ARGUMENT, "bad", "", 0)));
        RationClient c = new RationClient(options(a.address()).build())) {
      RationException e = assertThrows(RationException.class, () -> c.acquireLease("t", "r", "h", -1, 1));
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
      assertInstanceOf(RationFailedException.class, e);
      assertEquals(1, a.received.size());
    }
  }

  @Test
  void clusterStatusOfASpecificAddress() throws Exception {
    Response.ClusterStatusReply status =
        new Response.ClusterStatusReply("n2", "FOLLOWER", 3, 10, 10, "n1", "x:1", 0, 1, List.of());
    try (FakeServer a = new FakeServer((s, r) -> s.reply(r, status));
        FakeServer other = new FakeServer((s, r) -> s.reply(r, status));
        RationClient c = new RationClient(options(other.address()).build())) {
      assertEquals(new ClusterStatus("n2", "FOLLOWER", 3, 10, 10, "n1", "x:1", LedgerTime.ofMillis(0), 1, List.of()),
          c.clusterStatus(a.address()));
      assertEquals(1, a.count(Kind.CLUSTER_STATUS));
      assertEquals(0, other.received.size());
    }
  }

  /**
   * Goal: the typed views carry what the wire's views carry, each figure in its place, with
   * ledger-time milliseconds as {@link LedgerTime} and lengths of time as {@link Duration}.
   */
  @Test
  void limitAndLeaseViewsConvertMillisToDurationsAndLedgerTimes() throws Exception {
    LimitStatus wireLimit = new LimitStatus(
        new Limit("t", "r", 100, 20, Mode.BEST_EFFORT, 1_500, 250, 7, Policy.FAIR_SHARE, 42),
        11, 12, 13, 14, 15, 16, 17, 18, 19, 20).withDemand(21, 22);
    LeaseView wireLease = new LeaseView(5, "t", "r", "h", 3, 4, 30, 6, 31, 7, 1_000, 11_000, 13_000,
        Mode.BEST_EFFORT, 7, 10_000);
    try (FakeServer a = new FakeServer((s, r) -> {
          if (r.request() instanceof Request.GetLimit) {
            s.reply(r, new Response.GetLimitReply(true, wireLimit));
          } else if (r.request() instanceof Request.ListLimits) {
            s.reply(r, new Response.LimitList(List.of(wireLimit)));
          } else if (r.request() instanceof Request.ListLeases) {
            s.reply(r, new Response.LeaseList(List.of(wireLease)));
          } else {
            s.reply(r, new Response.LeaseReply(Outcome.SUCCESS, "", 0, 4, wireLease, 9));
          }
        });
        RationClient c = new RationClient(options(a.address()).build())) {
      LimitInfo expectedLimit = new LimitInfo("t", "r", 100, 20, Mode.BEST_EFFORT,
          Duration.ofMillis(1_500), Duration.ofMillis(250), 7, Policy.FAIR_SHARE, 42,
          11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22);
      LeaseInfo expectedLease = new LeaseInfo(5, "t", "r", "h", 3, 4, 30, 6, 31, 7,
          LedgerTime.ofMillis(1_000), LedgerTime.ofMillis(11_000), LedgerTime.ofMillis(13_000),
          Mode.BEST_EFFORT, 7, Duration.ofSeconds(10));
      assertEquals(Optional.of(expectedLimit), c.getLimit("t", "r"));
      assertEquals(List.of(expectedLimit), c.listLimits());
      assertEquals(List.of(expectedLease), c.listLeases("t", "r"));
      LeaseResult acquired = c.acquireLease("t", "r", "h", 10, 1);
      assertEquals(Optional.of(expectedLease), acquired.lease());
      assertEquals(9, acquired.startBalance());
    }
  }

  private static LimitStatus limit(String tenant) {
    return new LimitStatus(new Limit(tenant, "r", 1, 1, Mode.HARD, 1, 1, 0, Policy.FREE_CAPACITY, 1),
        0, 0, 0, 0, 0, 0, 0, 1, 1, 0);
  }

  private static RationException unwrap(CompletableFuture<?> f) {
    java.util.concurrent.CompletionException ce =
        assertThrows(java.util.concurrent.CompletionException.class, f::join);
    return assertInstanceOf(RationException.class, ce.getCause());
  }
}
