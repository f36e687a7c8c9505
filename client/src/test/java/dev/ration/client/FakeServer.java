package dev.ration.client;

import dev.ration.protocol.DecodedRequest;
import dev.ration.protocol.Frame;
import dev.ration.protocol.FrameDecoder;
import dev.ration.protocol.FrameEncoder;
import dev.ration.protocol.Kind;
import dev.ration.protocol.MessageCodec;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A scripted stand-in for a Ration node on 127.0.0.1, ephemeral port, isolating the client from
 * the real server. It answers HELLO itself and hands every other request to {@link Script},
 * which may reply, stay silent, or close the connection. Records every frame received.
 */
final class FakeServer implements AutoCloseable {
  /** Received request: connection ordinal, frame request id, decoded request. */
  record Received(Channel channel, long requestId, Request request) {}

  interface Script {
    /** Reply via {@link FakeServer#reply}, or not at all. */
    void onRequest(FakeServer server, Received received);
  }

  final List<Received> received = new CopyOnWriteArrayList<>();
  final List<Request.Hello> hellos = new CopyOnWriteArrayList<>();
  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("fake-server", true), NioIoHandler.newFactory());
  private final Channel server;
  volatile Script script;
  volatile boolean leader = true;
  volatile String leaderAddress = "";
  /** The HELLO answer; null: a HelloReply of protocol version 1. */
  volatile Response helloAnswer;

  FakeServer(Script script) throws InterruptedException {
    this.script = script;
    server =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline()
                        .addLast(FrameDecoder.forServer(Frame.DEFAULT_MAX_FRAME_BYTES))
                        .addLast(new FrameEncoder())
                        .addLast(new Handler());
                  }
                })
            .bind("127.0.0.1", 0)
            .sync()
            .channel();
  }

  String address() {
    return "127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort();
  }

  void reply(Received r, Response response) {
    r.channel().writeAndFlush(MessageCodec.responseFrame(r.requestId(), r.request().kind(), response));
  }

  long count(Kind kind) {
    return received.stream().filter(r -> r.request().kind() == kind).count();
  }

  private final class Handler extends SimpleChannelInboundHandler<Object> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Object msg) throws Exception {
      Frame f = (Frame) msg;
      Kind kind = Kind.fromCode(f.kind());
      DecodedRequest d = MessageCodec.decodeRequest(kind, f.payload());
      if (d.request() instanceof Request.Hello h) {
        hellos.add(h);
        Response answer = helloAnswer != null ? helloAnswer : new Response.HelloReply("fake", 1, leader, leaderAddress);
        ctx.writeAndFlush(MessageCodec.responseFrame(f.requestId(), Kind.HELLO, answer));
        return;
      }
      Received r = new Received(ctx.channel(), f.requestId(), d.request());
      received.add(r);
      script.onRequest(FakeServer.this, r);
    }
  }

  @Override
  public void close() {
    server.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
  }
}
