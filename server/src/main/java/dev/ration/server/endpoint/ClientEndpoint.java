package dev.ration.server.endpoint;

import dev.ration.wire.ErrorCode;
import dev.ration.protocol.FrameDecoder;
import dev.ration.protocol.FrameEncoder;
import dev.ration.server.config.EndpointOptions;
import dev.ration.server.consensus.Coordinator;
import dev.ration.server.security.Security;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.util.concurrent.atomic.AtomicLong;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's client endpoint: a Netty server on the client address whose pipeline per
 * connection is {@code FrameDecoder → FrameEncoder → ConnectionHandler} (the codec is the
 * protocol module's, reused, never re-implemented here).
 *
 * <p>Bounds: at most {@code maxConnections} open connections (further ones are closed at once
 * and counted); per connection the in-flight cap of {@link ConnectionHandler}; memory is
 * therefore bounded by connections × in-flight × frame size.
 *
 * <p>Thread-safe. Shutdown is in steps so the node can interleave them with consensus:
 * {@link #stopAccepting()}, {@link #awaitInFlight(Duration)}, {@link #failInFlight(String)},
 * {@link #close()}.
 */
public final class ClientEndpoint implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ClientEndpoint.class);

  private final EndpointOptions options;
  private final AdmissionGate gate;
  private final EventLoopGroup acceptor;
  private final EventLoopGroup workers;
  private final ChannelGroup channels = new DefaultChannelGroup("ration-clients", GlobalEventExecutor.INSTANCE);
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Channel serverChannel;
  private final InetSocketAddress localAddress;

  private ClientEndpoint(
      InetSocketAddress bind,
      EndpointOptions options,
      Coordinator coordinator,
      Translation translation,
      EndpointListener listener,
      LongSupplier nanoClock,
      SslContext tls,
      Security security)
      throws InterruptedException {
    this.options = options;
    this.gate = new AdmissionGate(options);
    this.acceptor =
        new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("ration-accept", true), NioIoHandler.newFactory());
    this.workers =
        new MultiThreadIoEventLoopGroup(
            Math.max(1, options.ioThreads()), new DefaultThreadFactory("ration-client-io", true), NioIoHandler.newFactory());
    FrameEncoder encoder = new FrameEncoder(options.maxFrameBytes());
    ServerBootstrap b =
        new ServerBootstrap()
            .group(acceptor, workers)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, 256)
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.SO_KEEPALIVE, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    int now = open.incrementAndGet();
                    if (now > options.maxConnections() || gate.draining()) {
                      open.decrementAndGet();
                      listener.connectionRefused();
                      log.warn(
                          "event=connection_refused remote={} open={} max={} draining={}",
                          ch.remoteAddress(), now - 1, options.maxConnections(), gate.draining());
                      ch.close();
                      return;
                    }
                    ch.closeFuture().addListener(f -> open.decrementAndGet());
                    channels.add(ch);
                    if (tls != null) {
                      // Handshake failures (a client without the certificate the port requires,
                      // garbage instead of a ClientHello) close this connection only; the
                      // handler logs and counts them.
                      SslHandler handler = tls.newHandler(ch.alloc());
                      handler.setHandshakeTimeoutMillis(HANDSHAKE_TIMEOUT_MILLIS);
                      ch.pipeline().addLast("tls", handler).addLast("tls-outcome", new TlsOutcome(listener));
                    }
                    ch.pipeline()
                        .addLast("frames", FrameDecoder.forServerBeforeHello(options.maxFrameBytes()))
                        .addLast("encoder", encoder)
                        .addLast(
                            "connection",
                            new ConnectionHandler(coordinator, translation, gate, listener, nanoClock, security));
                  }
                });
    try {
      this.serverChannel = b.bind(bind).sync().channel();
    } catch (InterruptedException | RuntimeException e) {
      acceptor.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw e;
    }
    this.localAddress = (InetSocketAddress) serverChannel.localAddress();
    log.info(
        "event=endpoint_started address={} max_frame_bytes={} max_in_flight_per_connection={} max_connections={} io_threads={}",
        Addresses.format(localAddress), options.maxFrameBytes(), options.maxInFlightPerConnection(),
        options.maxConnections(), options.ioThreads());
  }

  /** Binds {@code bindAddress} ({@code host:port}; port 0 picks a free one) and starts serving. */
  public static ClientEndpoint start(
      String bindAddress,
      EndpointOptions options,
      Coordinator coordinator,
      Translation translation,
      EndpointListener listener)
      throws InterruptedException {
    return start(bindAddress, options, coordinator, translation, listener, null, Security.insecure());
  }

  /** As {@link #start(String, EndpointOptions, Coordinator, Translation, EndpointListener)}, under {@code tls} (null: plaintext). */
  public static ClientEndpoint start(
      String bindAddress,
      EndpointOptions options,
      Coordinator coordinator,
      Translation translation,
      EndpointListener listener,
      SslContext tls)
      throws InterruptedException {
    return start(bindAddress, options, coordinator, translation, listener, tls, Security.insecure());
  }

  /** As above, authenticating and authorizing every connection with {@code security}. */
  public static ClientEndpoint start(
      String bindAddress,
      EndpointOptions options,
      Coordinator coordinator,
      Translation translation,
      EndpointListener listener,
      Security security)
      throws InterruptedException {
    return start(bindAddress, options, coordinator, translation, listener, null, security);
  }

  /** Under {@code tls} (null: plaintext), authenticating and authorizing with {@code security}. */
  public static ClientEndpoint start(
      String bindAddress,
      EndpointOptions options,
      Coordinator coordinator,
      Translation translation,
      EndpointListener listener,
      SslContext tls,
      Security security)
      throws InterruptedException {
    return new ClientEndpoint(
        Addresses.parse(bindAddress), options, coordinator, translation, listener, System::nanoTime, tls,
        security);
  }

  /** A client that opened TCP but has not finished its handshake within this is dropped. */
  static final long HANDSHAKE_TIMEOUT_MILLIS = 10_000;

  /** Logs (rate-limited by the listener's counters, not per line) and counts refused handshakes. */
  private static final class TlsOutcome extends ChannelInboundHandlerAdapter {
    private static final AtomicLong lastLogNanos = new AtomicLong(System.nanoTime() - TimeUnit.SECONDS.toNanos(10));
    private final EndpointListener listener;

    TlsOutcome(EndpointListener listener) {
      this.listener = listener;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
      if (evt instanceof SslHandshakeCompletionEvent done && !done.isSuccess()) {
        listener.tlsHandshakeFailed();
        if (done.cause() instanceof io.netty.handler.ssl.SslHandshakeTimeoutException) {
          // A peer that opened TCP and never finished (or began) its handshake held a place
          // as an idle connection does: counted with the other stall closes.
          listener.connectionTimedOut("handshake");
        }
        long now = System.nanoTime();
        long last = lastLogNanos.get();
        // At most one line per second: a scanner or a misconfigured fleet must not flood the log.
        if (now - last >= TimeUnit.SECONDS.toNanos(1) && lastLogNanos.compareAndSet(last, now)) {
          log.warn("event=tls_handshake_failed remote={} error=\"{}\"", ctx.channel().remoteAddress(),
              abbreviate(String.valueOf(done.cause().getMessage()).replace('"', '\'')));
        }
        ctx.close();
      }
      super.userEventTriggered(ctx, evt);
    }

    /** Netty quotes the bytes of a record that is not TLS: a line must not carry a client's 16 KiB. */
    private static String abbreviate(String s) {
      return s.length() <= 200 ? s : s.substring(0, 200) + "...";
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      // Before the handshake completes nothing above this handler has state to clean up.
      if (!ctx.pipeline().get(SslHandler.class).handshakeFuture().isDone()
          || !ctx.pipeline().get(SslHandler.class).handshakeFuture().isSuccess()) {
        ctx.close();
        return;
      }
      ctx.fireExceptionCaught(cause);
    }
  }

  public InetSocketAddress localAddress() {
    return localAddress;
  }

  public EndpointOptions options() {
    return options;
  }

  /** Connections being served now. */
  public int openConnections() {
    return open.get();
  }

  /** Requests admitted and not yet answered, over all connections. */
  public int inFlight() {
    return gate.inFlight();
  }

  public boolean draining() {
    return gate.draining();
  }

  /**
   * First shutdown step: new connections are refused and new requests on open ones are answered
   * UNAVAILABLE; requests already admitted continue.
   */
  public void stopAccepting() {
    if (!gate.draining()) {
      gate.startDraining();
      serverChannel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
      log.info("event=endpoint_stop_accepting in_flight={} connections={}", gate.inFlight(), open.get());
    }
  }

  /** Waits up to {@code grace} for admitted requests to be answered; true if none is left. */
  public boolean awaitInFlight(Duration grace) throws InterruptedException {
    return gate.awaitIdle(grace.toNanos());
  }

  /** Answers every request still in flight UNAVAILABLE; returns how many there were. */
  public int failInFlight(String reason) {
    return gate.failAll(ErrorCode.UNAVAILABLE, reason, Admission.SHUTDOWN_RETRY_AFTER_MILLIS);
  }

  /** Closes every connection (after writes already queued) and stops the event loops. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    stopAccepting();
    channels.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    acceptor.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    log.info("event=endpoint_closed address={}", Addresses.format(localAddress));
  }
}
