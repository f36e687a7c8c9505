package dev.ration.server.endpoint;

import dev.ration.protocol.CancelOutcome;
import dev.ration.protocol.DecodedRequest;
import dev.ration.wire.ErrorCode;
import dev.ration.protocol.Frame;
import dev.ration.protocol.FrameDecoder;
import dev.ration.protocol.FrameError;
import dev.ration.protocol.Kind;
import dev.ration.protocol.MalformedMessageException;
import dev.ration.protocol.MessageCodec;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.server.consensus.Coordinator;
import dev.ration.server.consensus.TtlWatchAnswer;
import dev.ration.server.consensus.NodeStatus;
import dev.ration.server.config.EndpointOptions;
import dev.ration.server.security.CertificateNames;
import dev.ration.server.security.Principal;
import dev.ration.server.security.Scope;
import dev.ration.server.security.Scopes;
import dev.ration.server.security.Security;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.SecurityCommand;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves one client connection: HELLO first, then pipelined requests answered in whatever
 * order they complete, each under a deadline. It is the Netty handler that wires the parts:
 * the protocol's codec decodes, {@link Admission} admits or refuses, {@link Translation} turns
 * requests into commands and results into replies, {@link ErrorReplies} says how every failure
 * is answered, and the {@link EndpointListener} sees every answer (metrics).
 *
 * <p>Sits after the protocol's {@code FrameDecoder} (which hands it {@link Frame}s and
 * {@link FrameError}s) and before its {@code FrameEncoder}. Thread: every field is touched only
 * on the channel's event loop; coordinator futures complete elsewhere and hop back with
 * {@code executor().execute}. Never blocks.
 *
 * <p>Invariants: a request is answered at most once ({@link Pending#done}); {@link #pending}
 * holds exactly the admitted, unfinished requests, at most maxInFlightPerConnection of them;
 * each admitted request is released from its {@link Admission} exactly once, when it is
 * answered or its connection closes. Bad input on this connection is answered (or the
 * connection closed) here and never reaches another.
 */
public final class ConnectionHandler extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(ConnectionHandler.class);
  private static final java.util.concurrent.atomic.AtomicLong lastStallLogNanos =
      new java.util.concurrent.atomic.AtomicLong(System.nanoTime() - TimeUnit.SECONDS.toNanos(10));

  private final Coordinator coordinator;
  private final Translation translation;
  private final AdmissionGate gate;
  private final Admission admission;
  private final EndpointListener listener;
  private final LongSupplier nanoClock;
  private final Security security;
  private final Set<Pending> pending = new HashSet<>();
  /** Who this connection authenticated as at HELLO; null before. */
  private Principal principal;

  private ChannelHandlerContext ctx;
  private boolean helloDone;
  private long clientHigh;
  private long clientLow;
  /** The client id from HELLO, the fairness key of requests that name no tenant. */
  private String session = "";
  /** Set when we decided to close: later frames already decoded are ignored. */
  private boolean closing;
  /** Inside channelRead (or writing a burst of answers): writes wait for one flush after. */
  private boolean reading;
  /** Coordinator answers not yet written, from any thread; drained on the event loop. */
  private final Queue<Answer> answers = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean answersScheduled = new AtomicBoolean();
  private final Runnable answerTask = this::writeAnswers;

  private record Answer(Pending pending, Object value, Throwable failure) {}

  /** Checks for a missing HELLO and a stalled frame; cancelled when the channel closes. */
  private ScheduledFuture<?> stallCheck;
  private long openedNanos;
  /** Frames (and frame errors) this connection has delivered; the stall check compares it. */
  private long framesSeen;
  private long framesSeenAtLastCheck = -1;
  /** When the stall check first saw the current incomplete frame; 0 when there is none. */
  private long partialSinceNanos;

  /** A request admitted and not yet answered. Identity-hashed; event-loop only. */
  private static final class Pending {
    final long requestId;
    final Request request;
    final long startNanos;
    /** What the request holds until it is answered; released when {@link #done} is set. */
    final Admission.Admitted admitted;
    ScheduledFuture<?> timer;
    /** The coordinator's future; cancelling a mutation's withdraws it if still queued. */
    CompletableFuture<?> answer;
    boolean done;

    Pending(long requestId, Request request, long startNanos, Admission.Admitted admitted) {
      this.requestId = requestId;
      this.request = request;
      this.startNanos = startNanos;
      this.admitted = admitted;
    }
  }

  public ConnectionHandler(
      Coordinator coordinator,
      Translation translation,
      AdmissionGate gate,
      EndpointListener listener,
      LongSupplier nanoClock) {
    this(coordinator, translation, gate, listener, nanoClock, Security.insecure());
  }

  public ConnectionHandler(
      Coordinator coordinator,
      Translation translation,
      AdmissionGate gate,
      EndpointListener listener,
      LongSupplier nanoClock,
      Security security) {
    this.security = security;
    this.coordinator = coordinator;
    this.translation = translation;
    this.gate = gate;
    this.admission = new Admission(gate, () -> coordinator.status().leaderClientAddress());
    this.listener = listener;
    this.nanoClock = nanoClock;
  }

  /** Requests of this connection admitted and not yet answered (event loop only; for tests). */
  public int pendingCount() {
    return pending.size();
  }

  /** The deadline span for a request's {@code timeoutMillis} (0 = default; capped at max). */
  public static long timeoutNanos(int timeoutMillis, Duration defaultDeadline, Duration maxDeadline) {
    Duration d = timeoutMillis <= 0 ? defaultDeadline : Duration.ofMillis(timeoutMillis);
    if (d.compareTo(maxDeadline) > 0) {
      d = maxDeadline;
    }
    return d.toNanos();
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    gate.register(this);
    listener.connectionOpened();
    openedNanos = nanoClock.getAsLong();
    long period = stallCheckPeriodNanos(gate.options().helloTimeout(), gate.options().frameTimeout());
    stallCheck = ctx.executor().scheduleAtFixedRate(this::checkStalls, period, period, TimeUnit.NANOSECONDS);
    log.debug("event=connection_opened remote={}", ctx.channel().remoteAddress());
    super.channelActive(ctx);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    closing = true;
    if (stallCheck != null) {
      stallCheck.cancel(false);
    }
    int dropped = 0;
    int withdrawn = 0;
    // Bounded by the in-flight cap. Answers that arrive later find done=true and are dropped.
    for (Pending p : pending) {
      p.done = true;
      if (p.timer != null) {
        p.timer.cancel(false);
      }
      // Nobody is left to hear the answer: a mutation still queued for group commit is
      // withdrawn and never reaches Raft. One already proposed runs its course; the client
      // must treat it as indeterminate and retry under the same request id.
      if (p.answer != null && p.request.kind().mutation() && p.answer.cancel(false)) {
        withdrawn++;
      }
      admission.release(p.admitted);
      dropped++;
    }
    pending.clear();
    gate.unregister(this);
    listener.connectionClosed();
    log.debug("event=connection_closed remote={} unanswered={} withdrawn={}",
        ctx.channel().remoteAddress(), dropped, withdrawn);
    super.channelInactive(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    reading = true;
    try {
      if (closing) {
        return;
      }
      if (msg instanceof FrameError e) {
        onFrameError(e);
      } else if (msg instanceof Frame f) {
        onFrame(f);
      } else {
        log.warn("event=unexpected_message type={}", msg.getClass().getName());
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    reading = false;
    ctx.flush();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // Transport failures (reset, broken pipe) end this connection only.
    log.debug("event=connection_error remote={} error={}", ctx.channel().remoteAddress(), cause.toString());
    closing = true;
    ctx.close();
  }

  // ---------------------------------------------------------------- input

  /** A quarter of the shorter timeout: a stall is noticed at most a third late. */
  static long stallCheckPeriodNanos(Duration helloTimeout, Duration frameTimeout) {
    long shorter = Math.min(helloTimeout.toNanos(), frameTimeout.toNanos());
    return Math.max(TimeUnit.MILLISECONDS.toNanos(10), shorter / 4);
  }

  /**
   * Closes a connection that holds a place without using it: no HELLO within the HELLO timeout,
   * or one frame begun and not finished within the frame timeout (a peer dribbling a frame a
   * byte at a time counts: progress is whole frames, not bytes). A connection idle between
   * frames holds no buffer and is left alone.
   */
  private void checkStalls() {
    if (closing || !ctx.channel().isActive()) {
      return;
    }
    long now = nanoClock.getAsLong();
    EndpointOptions o = gate.options();
    if (!helloDone && now - openedNanos >= o.helloTimeout().toNanos()) {
      timedOut("hello", new FrameError(ErrorCode.HELLO_REQUIRED,
          "no HELLO within endpoint.hello-timeout " + o.helloTimeout().toMillis() + " ms; closing",
          0, true));
      return;
    }
    FrameDecoder decoder = ctx.pipeline().get(FrameDecoder.class);
    boolean partial = decoder != null && decoder.holdsPartialFrame();
    if (!partial) {
      partialSinceNanos = 0;
    } else if (framesSeen != framesSeenAtLastCheck || partialSinceNanos == 0) {
      partialSinceNanos = now; // a frame begun since the last check
    } else if (now - partialSinceNanos >= o.frameTimeout().toNanos()) {
      timedOut("frame", new FrameError(ErrorCode.MALFORMED,
          "a frame begun more than endpoint.frame-timeout " + o.frameTimeout().toMillis()
              + " ms ago is still incomplete; closing", 0, true));
      return;
    }
    framesSeenAtLastCheck = framesSeen;
  }

  private void timedOut(String reason, FrameError error) {
    listener.connectionTimedOut(reason);
    // Many stalled peers at once (a slowloris attempt) must not flood the log: one line a second.
    long nowNanos = System.nanoTime();
    long last = lastStallLogNanos.get();
    if (nowNanos - last >= TimeUnit.SECONDS.toNanos(1) && lastStallLogNanos.compareAndSet(last, nowNanos)) {
      log.info("event=connection_timed_out reason={} remote={}", reason, ctx.channel().remoteAddress());
    }
    io.netty.handler.ssl.SslHandler tls = ctx.pipeline().get(io.netty.handler.ssl.SslHandler.class);
    if (tls != null && !tls.handshakeFuture().isSuccess()) {
      // No frame can be written before the TLS handshake: a write would wait for it (for ever,
      // from a peer that never began one), and the close behind the write with it.
      closing = true;
      ctx.close();
      return;
    }
    closeAfter(error.toFrame());
  }

  private void onFrameError(FrameError e) {
    framesSeen++;
    listener.requestAnswered("UNKNOWN", e.code(), "NONE", 0);
    if (e.fatal()) {
      log.info(
          "event=frame_error fatal=true code={} request_id={} remote={} message=\"{}\"",
          e.code(), e.requestId(), ctx.channel().remoteAddress(), e.message());
      closeAfter(e.toFrame());
    } else {
      log.debug("event=frame_error fatal=false code={} request_id={} message=\"{}\"",
          e.code(), e.requestId(), e.message());
      send(e.toFrame());
    }
  }

  private void onFrame(Frame f) {
    framesSeen++;
    long startNanos = nanoClock.getAsLong();
    Kind kind = Kind.fromCode(f.kind());
    if (kind == null) {
      // The decoder already filters unknown kinds; kept so this handler stands alone.
      onFrameError(ErrorReplies.unknownKind(f));
      return;
    }
    if (!helloDone) {
      if (kind != Kind.HELLO) {
        log.info("event=hello_required kind={} remote={}", kind, ctx.channel().remoteAddress());
        Response.Error err = ErrorReplies.helloRequired(kind);
        listener.requestAnswered(kind.name(), err.code(), "NONE", nanoClock.getAsLong() - startNanos);
        closeAfter(MessageCodec.responseFrame(f.requestId(), kind, err));
        return;
      }
      onHello(f, startNanos);
      return;
    }
    if (kind == Kind.HELLO) {
      reply(f.requestId(), kind, ErrorReplies.helloRepeated(), startNanos);
      return;
    }
    DecodedRequest decoded;
    try {
      decoded = MessageCodec.decodeRequest(kind, f.payload());
    } catch (MalformedMessageException e) {
      reply(f.requestId(), kind, ErrorReplies.malformed(e), startNanos);
      return;
    }
    if (decoded.request() instanceof Request.Cancel cancel) {
      onCancel(f.requestId(), cancel, startNanos);
      return;
    }
    Optional<Admission.Refused> draining = admission.checkDraining();
    if (draining.isPresent()) {
      reply(f.requestId(), kind, draining.get().toResponse(), startNanos);
      return;
    }
    // A revoked or expired token ends this connection at its next request.
    Optional<Security.Refusal> revoked = security.recheck(principal);
    if (revoked.isPresent()) {
      Response.Error err = refusalReply(revoked.get());
      listener.requestAnswered(kind.name(), err.code(), "NONE", nanoClock.getAsLong() - startNanos);
      closeAfter(MessageCodec.responseFrame(f.requestId(), kind, err));
      return;
    }
    // One scope per request: authorization and admission fairness read the same one.
    Scope scope = Scopes.of(decoded.request());
    Security.Decision decision = security.authorize(principal, decoded.request(), scope);
    if (decision instanceof Security.Denied denied) {
      reply(f.requestId(), kind, deniedHere(denied.refusal()), startNanos);
      return;
    }
    Security.Allowed allowed = (Security.Allowed) decision;
    Translation.Action action = translation.toAction(decoded.request());
    if (action instanceof Translation.Invalid inv) {
      reply(f.requestId(), kind, ErrorReplies.invalidArgument(inv.message()), startNanos);
    } else if (action instanceof Translation.LocalStatus) {
      reply(f.requestId(), kind, Translation.toResponse(coordinator.status()), startNanos);
    } else if (action instanceof Translation.WhoAmI) {
      reply(f.requestId(), kind, new Response.WhoAmIReply(principal.identity(), principal.how(),
          security.grantsOf(principal.identity())), startNanos);
    } else {
      if (action instanceof Translation.Mutation m) {
        action = new Translation.Mutation(onBehalf(m.command(), allowed));
      }
      admit(f.requestId(), decoded, scope, action, startNanos);
    }
  }

  private void onHello(Frame f, long startNanos) {
    DecodedRequest decoded;
    try {
      decoded = MessageCodec.decodeRequest(Kind.HELLO, f.payload());
    } catch (MalformedMessageException e) {
      reply(f.requestId(), Kind.HELLO, ErrorReplies.malformed(e), startNanos);
      return;
    }
    Request.Hello hello = (Request.Hello) decoded.request();
    if (hello.protocolVersion() != Frame.PROTOCOL_VERSION) {
      Response.Error err = ErrorReplies.unsupportedVersion(hello.protocolVersion());
      listener.requestAnswered(Kind.HELLO.name(), err.code(), "NONE", nanoClock.getAsLong() - startNanos);
      closeAfter(MessageCodec.responseFrame(f.requestId(), Kind.HELLO, err));
      return;
    }
    if (hello.clientHigh() == 0 && hello.clientLow() == 0) {
      // (0, 0, 0) is RequestKey.NONE, which the ledger never deduplicates.
      reply(f.requestId(), Kind.HELLO, ErrorReplies.reservedClientId(), startNanos);
      return;
    }
    Object auth = security.authenticate(
        hello.credential() == null ? new byte[0] : hello.credential(),
        CertificateNames.of(ctx.pipeline()), Security.Port.CLIENT, sourceOf(ctx));
    if (auth instanceof Security.Refusal refusal) {
      // One attempt per connection: a guesser pays a connection (and a TLS handshake) per try.
      Response.Error err = "bad_token".equals(refusal.reason()) ? deniedHere(refusal)
          : refusalReply(refusal);
      listener.requestAnswered(Kind.HELLO.name(), err.code(), "NONE", nanoClock.getAsLong() - startNanos);
      closeAfter(MessageCodec.responseFrame(f.requestId(), Kind.HELLO, err));
      return;
    }
    principal = (Principal) auth;
    helloDone = true;
    FrameDecoder frames = ctx.pipeline().get(FrameDecoder.class);
    if (frames != null) {
      frames.admitFullFrames();
    }
    clientHigh = hello.clientHigh();
    clientLow = hello.clientLow();
    session = Long.toHexString(clientHigh) + ":" + Long.toHexString(clientLow);
    NodeStatus s = coordinator.status();
    boolean leader = isLeader(s);
    log.debug("event=hello client={}:{} remote={} leader={}",
        Long.toHexString(clientHigh), Long.toHexString(clientLow), ctx.channel().remoteAddress(), leader);
    reply(f.requestId(), Kind.HELLO,
        new Response.HelloReply(s.nodeId(), Frame.PROTOCOL_VERSION, leader, s.leaderClientAddress()),
        startNanos);
  }

  /**
   * CANCEL: withdraw a request of this connection that has not reached Raft. A queued mutation
   * is withdrawn and answered CANCELLED (never applied); a read is answered CANCELLED at once
   * (it has no effect to undo); a mutation already proposed keeps its real outcome (TOO_LATE).
   * Only this connection's own requests can be named: another connection's ids are NOT_FOUND.
   */
  private void onCancel(long cancelRequestId, Request.Cancel cancel, long startNanos) {
    Pending target = null;
    for (Pending p : pending) {
      if (p.requestId == cancel.requestId() && !p.done) {
        target = p;
        break;
      }
    }
    Response.CancelReply reply;
    if (target == null) {
      reply = new Response.CancelReply(CancelOutcome.NOT_FOUND,
          "no request " + cancel.requestId() + " is waiting on this connection");
    } else if (!target.request.kind().mutation()) {
      finish(target, ErrorReplies.cancelled("read cancelled by request " + cancelRequestId));
      reply = new Response.CancelReply(CancelOutcome.CANCELLED, "");
    } else if (target.answer != null && target.answer.cancel(false)) {
      // The withdrawn command's CANCELLED answer arrives through the usual answer path.
      reply = new Response.CancelReply(CancelOutcome.CANCELLED, "");
    } else {
      reply = new Response.CancelReply(CancelOutcome.TOO_LATE,
          "request " + cancel.requestId() + " was already proposed; its own reply tells its outcome");
    }
    reply(cancelRequestId, Kind.CANCEL, reply, startNanos);
  }

  /**
   * The command as proposed for this connection's identity: the security commands carry their
   * actor; a command whose scope only the ledger can resolve goes limited to the identity's
   * tenants; a change the audit log records goes on behalf of the identity.
   */
  private Command onBehalf(Command command, Security.Allowed allowed) {
    if (!security.secure()) {
      return command;
    }
    Command withActor = SecurityTranslation.withActor(command, principal.identity());
    if (withActor instanceof SecurityCommand) {
      return withActor;
    }
    if (allowed.tenants().isEmpty() && !allowed.attribute()) {
      return withActor;
    }
    return SecurityCommand.Authorized.of(principal.identity(), allowed.tenants(), withActor);
  }

  /**
   * A refusal judged on this node's copy of the grants and tokens. A follower's copy may lag
   * the leader's by the entries it has not applied yet (a grant or token just made), so a
   * follower sends the caller to the leader instead (NOT_LEADER, definite): the leader has
   * applied every change it acknowledged, so its refusal is the answer.
   */
  private Response.Error deniedHere(Security.Refusal r) {
    NodeStatus s = coordinator.status();
    if (!isLeader(s)) {
      return ErrorReplies.error(ErrorCode.NOT_LEADER, "refused on this follower, whose grants"
          + " may lag the leader's: ask the leader (" + r.message() + ")",
          s.leaderClientAddress(), 0);
    }
    return refusalReply(r);
  }

  private static Response.Error refusalReply(Security.Refusal r) {
    return ErrorReplies.error(r.code(), r.message(), "", r.retryAfterMillis());
  }

  private static String sourceOf(ChannelHandlerContext ctx) {
    java.net.SocketAddress remote = ctx.channel().remoteAddress();
    if (remote instanceof java.net.InetSocketAddress inet && inet.getAddress() != null) {
      return inet.getAddress().getHostAddress();
    }
    return String.valueOf(remote);
  }

  static boolean isLeader(NodeStatus s) {
    return "LEADER".equalsIgnoreCase(s.role());
  }

  private void admit(long requestId, DecodedRequest decoded, Scope scope, Translation.Action action,
      long startNanos) {
    Admission.Decision decision = admission.admit(pending.size(), decoded.request(), scope, session);
    if (decision instanceof Admission.Refused refused) {
      reply(requestId, decoded.request().kind(), refused.toResponse(), startNanos);
      return;
    }
    long timeoutNanos =
        timeoutNanos(decoded.timeoutMillis(), gate.options().defaultDeadline(), gate.options().maxDeadline());
    long deadlineNanos = startNanos + timeoutNanos;
    Pending p = new Pending(requestId, decoded.request(), startNanos, (Admission.Admitted) decision);
    pending.add(p);
    // Our own timer answers even if the coordinator never does; a late answer is then dropped.
    p.timer =
        ctx.executor()
            .schedule(
                () -> finish(p, ErrorReplies.deadlineExceeded(timeoutNanos)),
                timeoutNanos,
                TimeUnit.NANOSECONDS);
    CompletableFuture<?> answer;
    try {
      if (action instanceof Translation.Mutation m) {
        answer = coordinator.submit(new RequestKey(clientHigh, clientLow, requestId), m.command(), deadlineNanos);
      } else if (action instanceof Translation.WatchTtl w) {
        answer = coordinator.watchTtl(w.namespace(), w.fromIndex(), w.waitMillis(), w.keys(),
            w.confirm(), deadlineNanos);
      } else {
        Translation.Read r = (Translation.Read) action;
        answer = coordinator.query(r.query(), r.stale(), deadlineNanos);
      }
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    p.answer = answer;
    answer.whenComplete((value, failure) -> answered(p, value, failure));
  }

  /**
   * An answer from the coordinator, on whichever thread completed it (for a group-commit entry,
   * the applying thread completes every command of the entry in a row). Answers are queued and
   * one task on the event loop writes all that have arrived, then flushes once: one wake-up and
   * one write syscall per burst of replies rather than per reply.
   */
  private void answered(Pending p, Object value, Throwable failure) {
    answers.add(new Answer(p, value, failure));
    if (answersScheduled.compareAndSet(false, true)) {
      try {
        ctx.executor().execute(answerTask);
      } catch (RejectedExecutionException e) {
        // The event loop is gone, so the channel is closed and channelInactive released p.
        log.debug("event=answer_dropped request_id={} reason=event_loop_closed", p.requestId);
      }
    }
  }

  private void writeAnswers() {
    // Cleared first: an answer queued from now on schedules another run, so none is stranded.
    answersScheduled.set(false);
    boolean wasReading = reading;
    reading = true;
    try {
      Answer a;
      while ((a = answers.poll()) != null) {
        finish(a.pending(), toResponse(a.pending().request, a.value(), a.failure()));
      }
    } finally {
      reading = wasReading;
      if (!wasReading) {
        ctx.flush();
      }
    }
  }

  private Response toResponse(Request request, Object value, Throwable failure) {
    if (failure != null) {
      return ErrorReplies.forFailure(failure);
    }
    try {
      if (value instanceof Result r) {
        return translation.toResponse(request, r);
      }
      if (value instanceof QueryResult q) {
        return translation.toResponse(request.kind(), q);
      }
      if (value instanceof TtlWatchAnswer w) {
        return TtlTranslation.toResponse(w);
      }
      return ErrorReplies.noAnswer(request.kind());
    } catch (RuntimeException e) {
      log.warn("event=translation_failed kind={}", request.kind(), e);
      return ErrorReplies.translationFailed(e);
    }
  }

  /** Called from the shutdown thread: answer every pending request of this connection. */
  void failPending(ErrorCode code, String message, int retryAfterMillis) {
    try {
      ctx.executor().execute(() -> {
        List<Pending> all = new ArrayList<>(pending);
        for (Pending p : all) {
          finish(p, ErrorReplies.error(code, message, "", retryAfterMillis));
        }
      });
    } catch (RejectedExecutionException e) {
      log.debug("event=fail_pending_skipped reason=event_loop_closed");
    }
  }

  private void finish(Pending p, Response response) {
    if (p.done) {
      return;
    }
    p.done = true;
    pending.remove(p);
    if (p.timer != null) {
      p.timer.cancel(false);
    }
    admission.release(p.admitted);
    reply(p.requestId, p.request.kind(), response, p.startNanos);
  }

  // ---------------------------------------------------------------- output

  private void reply(long requestId, Kind kind, Response response, long startNanos) {
    Frame frame = encode(requestId, kind, response);
    Response sent = response;
    if (frame == null) {
      sent = ErrorReplies.notEncoded(kind);
      frame = MessageCodec.responseFrame(requestId, kind, sent);
    }
    listener.requestAnswered(kind.name(), codeOf(sent), outcomeOf(sent), nanoClock.getAsLong() - startNanos);
    send(frame);
  }

  /** Encodes a reply, replacing one too large for a frame with an error naming the sizes. */
  private Frame encode(long requestId, Kind kind, Response response) {
    try {
      Frame frame = MessageCodec.responseFrame(requestId, kind, response);
      int length = Frame.HEADER_BYTES + frame.payload().length;
      int max = gate.options().maxFrameBytes();
      if (length > max) {
        return MessageCodec.responseFrame(requestId, kind, ErrorReplies.replyTooLarge(kind, length, max));
      }
      return frame;
    } catch (RuntimeException e) {
      log.warn("event=encode_failed kind={} request_id={}", kind, requestId, e);
      return null;
    }
  }

  private void send(Frame frame) {
    if (reading) {
      ctx.write(frame, ctx.voidPromise());
    } else {
      ctx.writeAndFlush(frame, ctx.voidPromise());
    }
  }

  private void closeAfter(Frame frame) {
    closing = true;
    ctx.writeAndFlush(frame).addListener(ChannelFutureListener.CLOSE);
  }

  static ErrorCode codeOf(Response r) {
    return r instanceof Response.Error e ? e.code() : ErrorCode.OK;
  }

  static String outcomeOf(Response r) {
    return r.domainOutcome().map(Enum::name).orElse("NONE");
  }
}
