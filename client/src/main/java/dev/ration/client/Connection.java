package dev.ration.client;

import dev.ration.wire.ErrorCode;
import dev.ration.protocol.Frame;
import dev.ration.protocol.FrameDecoder;
import dev.ration.protocol.FrameEncoder;
import dev.ration.protocol.FrameError;
import dev.ration.protocol.Kind;
import dev.ration.protocol.MalformedMessageException;
import dev.ration.protocol.MessageCodec;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import dev.ration.protocol.tls.TlsErrors;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One TCP connection to one server: HELLO first, then pipelined requests matched to responses
 * by request id (responses may arrive in any order).
 *
 * <p>Thread: all mutable state ({@link #pending}) is touched only on the channel's event loop;
 * {@link #send} hops there. Invariants: at most {@code maxInFlight} entries in {@code pending};
 * every pending entry completes exactly once (reply, its deadline timer, or channel loss).
 */
final class Connection {
  private final String address;
  private final Channel channel;
  private final int maxInFlight;
  private final int maxFrameBytes;
  private final Map<Long, Pending> pending = new HashMap<>();
  private final CompletableFuture<Response.HelloReply> hello = new CompletableFuture<>();
  /** Event-loop confined: a flush task is queued and has not run yet. */
  private boolean flushScheduled;
  private final Runnable flushTask = this::flushNow;
  /** True when this client presents a certificate in its TLS handshakes. */
  private final boolean presentsCertificate;

  private record Pending(Kind kind, CompletableFuture<Response> future, ScheduledFuture<?> timer) {}

  /**
   * Frames read from the server so far (event loop only). A request whose deadline passes with
   * this unchanged since it was written heard nothing at all on the connection: the path may be
   * cut, and TCP would then deliver what waits in its buffers only at its next backed-off
   * retransmission, seconds after the path heals. The connection is then probed with a request
   * the node answers itself (WHOAMI); if that too hears nothing within {@link #PROBE_MILLIS},
   * the connection is closed, so the next attempt opens a new one. A node that is only slow to
   * commit (no quorum, an election) answers the probe, and the connection is kept.
   */
  private long framesRead;

  /** A probe is in flight (event loop only). */
  private boolean probing;

  /** Probe request ids: negative, never one of the caller's (those count up from 1). */
  private long nextProbeId = -1;

  /**
   * Below this, a request's deadline missed on a silent connection says more about the deadline
   * than about the path: such misses start no probe.
   */
  static final int SILENT_PROBE_MIN_MILLIS = 200;

  /** How long a probe of a silent connection waits for any frame before closing it. */
  static final int PROBE_MILLIS = 1_000;

  private Connection(String address, Channel channel, int maxInFlight, int maxFrameBytes, boolean presentsCertificate) {
    this.address = address;
    this.presentsCertificate = presentsCertificate;
    this.channel = channel;
    this.maxInFlight = maxInFlight;
    this.maxFrameBytes = maxFrameBytes;
  }

  String address() {
    return address;
  }

  boolean isActive() {
    return channel.isActive();
  }

  /** The HELLO reply, once the handshake completed. */
  Response.HelloReply helloReply() {
    return hello.getNow(null);
  }

  /**
   * Connects and sends HELLO under {@code helloRequestId}, taken from the client's id sequence
   * so ids stay unique per client. Completes once the HELLO reply arrived; otherwise fails with
   * {@link AttemptFailure} (no request of the caller was written).
   */
  static CompletableFuture<Connection> open(
      EventLoopGroup group,
      String address,
      RationClientOptions options,
      SslContext ssl,
      long helloRequestId) {
    CompletableFuture<Connection> result = new CompletableFuture<>();
    HostPort hp;
    try {
      hp = HostPort.parse(address);
    } catch (IllegalArgumentException e) {
      result.completeExceptionally(new AttemptFailure(ErrorCode.UNAVAILABLE, e.getMessage(), false, e));
      return result;
    }
    Connection[] holder = new Connection[1];
    Bootstrap b =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, options.connectTimeout().toMillis()))
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    Connection c = new Connection(address, ch, options.maxInFlightPerConnection(), options.maxFrameBytes(),
                        options.tls() != null && options.tls().cert().isPresent());
                    holder[0] = c;
                    if (ssl != null) {
                      // The host dialled is the name the server's certificate must carry.
                      SslHandler tls = ssl.newHandler(ch.alloc(), hp.host(), hp.port());
                      tls.setHandshakeTimeoutMillis(options.connectTimeout().toMillis());
                      ch.pipeline().addLast("tls", tls);
                    }
                    ch.pipeline()
                        .addLast(FrameDecoder.forClient(options.maxFrameBytes()))
                        .addLast(new FrameEncoder(options.maxFrameBytes()))
                        .addLast(c.new Handler());
                  }
                });
    ChannelFuture cf = b.connect(hp.host(), hp.port());
    cf.addListener(
        f -> {
          if (!f.isSuccess()) {
            result.completeExceptionally(
                new AttemptFailure(
                    ErrorCode.UNAVAILABLE, "connect to " + address + " failed: " + f.cause(), false, f.cause()));
            return;
          }
          Connection c = holder[0];
          Channel ch = cf.channel();
          ScheduledFuture<?> timer =
              ch.eventLoop()
                  .schedule(
                      () -> {
                        c.hello.completeExceptionally(
                            new AttemptFailure(
                                ErrorCode.UNAVAILABLE, "no HELLO reply from " + address + " within " + humanDuration(options.connectTimeout()), false, null));
                        ch.close();
                      },
                      options.connectTimeout().toMillis(),
                      TimeUnit.MILLISECONDS);
          Request.Hello req =
              new Request.Hello(Frame.PROTOCOL_VERSION, options.clientIdHigh(), options.clientIdLow(),
                  options.token().getBytes(java.nio.charset.StandardCharsets.UTF_8));
          CompletableFuture<Response> reply = new CompletableFuture<>();
          c.pending.put(helloRequestId, new Pending(Kind.HELLO, reply, timer));
          ch.writeAndFlush(MessageCodec.requestFrame(helloRequestId, (int) options.connectTimeout().toMillis(), req));
          reply.whenComplete(
              (r, err) -> {
                if (err != null) {
                  c.hello.completeExceptionally(err);
                } else if (r instanceof Response.HelloReply h && h.protocolVersion() != Frame.PROTOCOL_VERSION) {
                  // A server that answers in its own version would misread this client's frames.
                  c.hello.completeExceptionally(new AttemptFailure(ErrorCode.UNSUPPORTED_VERSION,
                      otherVersion(address, "speaks protocol version " + h.protocolVersion()), false, null));
                  ch.close();
                } else if (r instanceof Response.HelloReply h) {
                  c.hello.complete(h);
                } else if (r instanceof Response.Error e) {
                  // A refused credential is the caller's to fix: no other node would take it.
                  boolean credential = e.code() == ErrorCode.UNAUTHENTICATED;
                  c.hello.completeExceptionally(
                      new AttemptFailure(
                          e.code() == ErrorCode.UNSUPPORTED_VERSION || credential ? e.code() : ErrorCode.UNAVAILABLE,
                          credential
                              ? "the server at " + address + " refused this client's credentials: "
                                  + e.message() + " (set a valid token with RationClientOptions.Builder.token,"
                                  + " or a client certificate; docs/SECURITY.md)"
                              : e.code() == ErrorCode.UNSUPPORTED_VERSION
                                  ? otherVersion(address, "refused it: " + e.message())
                                  : "HELLO to " + address + " refused: " + e.code() + " " + e.message(),
                          false, null));
                  ch.close();
                } else {
                  c.hello.completeExceptionally(
                      new AttemptFailure(ErrorCode.INTERNAL, "HELLO to " + address + " answered " + r, false, null));
                  ch.close();
                }
              });
          c.hello.whenComplete(
              (h, err) -> {
                if (err != null) {
                  result.completeExceptionally(err);
                } else {
                  result.complete(c);
                }
              });
        });
    return result;
  }

  /**
   * Sends one request. Completes with the server's response (an Error included) or fails with
   * {@link AttemptFailure}: DEADLINE_EXCEEDED when {@code timeoutMillis} passes, UNAVAILABLE when
   * the connection is lost, OVERLOADED (not written) when the in-flight cap is full.
   */
  CompletableFuture<Response> send(long requestId, Request request, int timeoutMillis) {
    CompletableFuture<Response> future = new CompletableFuture<>();
    channel.eventLoop().execute(() -> sendOnLoop(requestId, request, timeoutMillis, future));
    return future;
  }

  private void sendOnLoop(long requestId, Request request, int timeoutMillis, CompletableFuture<Response> future) {
    if (!channel.isActive()) {
      future.completeExceptionally(new AttemptFailure(ErrorCode.UNAVAILABLE, "connection to " + address + " is closed", false, null));
      return;
    }
    if (pending.size() >= maxInFlight) {
      future.completeExceptionally(
          new AttemptFailure(ErrorCode.OVERLOADED, "client in-flight cap " + maxInFlight + " reached on " + address, false, null));
      return;
    }
    if (pending.containsKey(requestId)) {
      future.completeExceptionally(
          new AttemptFailure(ErrorCode.INVALID_ARGUMENT, "request id " + requestId + " already in flight on " + address, false, null));
      return;
    }
    Frame frame;
    try {
      frame = MessageCodec.requestFrame(requestId, timeoutMillis, request);
    } catch (IllegalArgumentException e) {
      future.completeExceptionally(new AttemptFailure(ErrorCode.INVALID_ARGUMENT, e.getMessage(), false, e));
      return;
    }
    if (FrameEncoder.lengthField(frame) > maxFrameBytes) {
      future.completeExceptionally(
          new AttemptFailure(ErrorCode.FRAME_TOO_LARGE, "request " + requestId + " is " + FrameEncoder.lengthField(frame) + " bytes", false, null));
      return;
    }
    long framesReadAtSend = framesRead;
    ScheduledFuture<?> timer =
        channel.eventLoop()
            .schedule(
                () -> {
                  Pending p = pending.remove(requestId);
                  if (p != null) {
                    p.future.completeExceptionally(
                        new AttemptFailure(
                            ErrorCode.DEADLINE_EXCEEDED,
                            "no reply to request " + requestId + " from " + address + " within " + timeoutMillis + " ms",
                            true,
                            null));
                    if (framesRead == framesReadAtSend && timeoutMillis >= SILENT_PROBE_MIN_MILLIS) {
                      probe(); // silent since the request was written: see framesRead
                    }
                  }
                },
                timeoutMillis,
                TimeUnit.MILLISECONDS);
    pending.put(requestId, new Pending(request.kind(), future, timer));
    channel
        .write(frame)
        .addListener(
            f -> {
              if (!f.isSuccess()) {
                // The bytes may have partly left: conservatively treat as written.
                fail(requestId, new AttemptFailure(ErrorCode.UNAVAILABLE, "write to " + address + " failed: " + f.cause(), true, f.cause()));
                channel.close();
              }
            });
    flushSoon();
  }

  /** Asks the node something it answers itself; closes the connection if nothing comes back. */
  private void probe() {
    if (probing || !channel.isActive()) {
      return;
    }
    probing = true;
    long probeId = nextProbeId--;
    long framesReadAtProbe = framesRead;
    CompletableFuture<Response> answered = new CompletableFuture<>();
    answered.whenComplete((reply, failure) -> probing = false);
    ScheduledFuture<?> timer = channel.eventLoop().schedule(() -> {
      if (pending.remove(probeId) != null) {
        answered.complete(null);
        if (framesRead == framesReadAtProbe) {
          channel.close(); // channelInactive fails everything pending
        }
      }
    }, PROBE_MILLIS, TimeUnit.MILLISECONDS);
    pending.put(probeId, new Pending(Kind.WHOAMI, answered, timer));
    channel.write(MessageCodec.requestFrame(probeId, PROBE_MILLIS, new Request.WhoAmI()));
    flushSoon();
  }

  /**
   * One flush (one write syscall) for every request queued on the event loop before it: the
   * flush task runs after the send tasks already queued, so a burst of pipelined requests leaves
   * in one segment instead of one syscall each, and no request waits for a later one. Every
   * write is followed by a flush task, because the flag is cleared before flushing.
   */
  private void flushSoon() {
    if (!flushScheduled) {
      flushScheduled = true;
      channel.eventLoop().execute(flushTask);
    }
  }

  private void flushNow() {
    flushScheduled = false;
    channel.flush();
  }

  private void fail(long requestId, AttemptFailure failure) {
    Pending p = pending.remove(requestId);
    if (p != null) {
      p.timer.cancel(false);
      p.future.completeExceptionally(failure);
    }
  }

  void close() {
    channel.close();
  }

  private final class Handler extends SimpleChannelInboundHandler<Object> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
      framesRead++;
      if (msg instanceof FrameError fe) {
        if (fe.fatal()) {
          ctx.close(); // channelInactive fails everything pending
        } else {
          fail(fe.requestId(), new AttemptFailure(ErrorCode.INTERNAL, "server sent " + fe.message(), true, null));
        }
        return;
      }
      Frame frame = (Frame) msg;
      Pending p = pending.remove(frame.requestId());
      if (p == null) {
        return; // A reply after its deadline fired: the caller already has its answer.
      }
      p.timer.cancel(false);
      try {
        p.future.complete(MessageCodec.decodeResponse(p.kind, frame.payload()));
      } catch (MalformedMessageException e) {
        p.future.completeExceptionally(
            new AttemptFailure(ErrorCode.INTERNAL, "undecodable reply from " + address + ": " + e.getMessage(), true, e));
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      for (Long id : new ArrayList<>(pending.keySet())) {
        fail(id, new AttemptFailure(ErrorCode.UNAVAILABLE, "connection to " + address + " lost", true, null));
      }
      hello.completeExceptionally(
          new AttemptFailure(ErrorCode.UNAVAILABLE, "connection to " + address + " closed before HELLO reply", false, null));
      ctx.fireChannelInactive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof SslHandshakeCompletionEvent done && !done.isSuccess()) {
        failHelloOnTls(done.cause());
      }
      ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      failHelloOnTls(cause);
      ctx.close();
    }

    /**
     * A TLS failure before the HELLO reply is a definite refusal with its cause: the server's
     * certificate is expired or from another CA, or the server refused ours (under TLS 1.3 that
     * refusal arrives as an alert after the client's side of the handshake completed).
     * Retrying cannot cure it, so it fails UNAUTHENTICATED rather than UNAVAILABLE.
     */
    private void failHelloOnTls(Throwable cause) {
      if (hello.isDone()) {
        return;
      }
      TlsErrors.explain(address, cause, presentsCertificate).ifPresent(why ->
          hello.completeExceptionally(new AttemptFailure(ErrorCode.UNAUTHENTICATED, why, false, cause)));
    }
  }

  /**
   * A server of another protocol version: the server's words and this client's version, and
   * what to do (a rolling upgrade keeps the protocol version; docs/OPERATIONS.md, "Upgrades").
   */
  private static String otherVersion(String address, String serverSaid) {
    return "the server at " + address + " " + serverSaid + "; this client speaks protocol version "
        + Frame.PROTOCOL_VERSION + ": use a client library of the server's release";
  }

  /** "3s", "1.5s", "250ms", "2m": as durations are written everywhere else, not ISO-8601's "PT3S". */
  static String humanDuration(java.time.Duration d) {
    long ms = d.toMillis();
    if (ms < 1000) {
      return ms + "ms";
    }
    if (ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return java.math.BigDecimal.valueOf(ms, 3).stripTrailingZeros().toPlainString() + "s";
  }
}
