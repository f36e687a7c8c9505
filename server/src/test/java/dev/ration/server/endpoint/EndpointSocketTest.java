package dev.ration.server.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.wire.ErrorCode;
import dev.ration.protocol.Frame;
import dev.ration.protocol.FrameEncoder;
import dev.ration.protocol.FrameError;
import dev.ration.protocol.Kind;
import dev.ration.protocol.MessageCodec;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.server.config.EndpointOptions;
import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.Mode;
import dev.ration.statemachine.result.Result;
import dev.ration.testkit.Waits;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The endpoint on a real socket (127.0.0.1, ephemeral port) with a fake coordinator: garbage
 * on one connection closes that connection only; the maxConnections bound closes extra ones.
 */
class EndpointSocketTest {
  private static final EndpointOptions OPTIONS =
      new EndpointOptions(64 * 1024, 8, 3, Duration.ofSeconds(5), Duration.ofSeconds(30), 2, 256);
  /** What a test sends is handled on the endpoint's event-loop threads: tests wait for the effect. */
  private static final Waits SOON = Waits.upTo(Duration.ofSeconds(10)).every(Duration.ofMillis(10));

  private FakeCoordinator coordinator;
  private ClientEndpoint endpoint;

  /** A blocking test client speaking the protocol through the shared codec. */
  static final class Conn implements AutoCloseable {
    final Socket socket;
    final DataInputStream in;
    final OutputStream out;

    Conn(InetSocketAddress address) throws IOException {
      socket = new Socket();
      socket.connect(address, 5_000);
      socket.setSoTimeout(10_000); // Bounds every read; no test waits longer.
      in = new DataInputStream(socket.getInputStream());
      out = socket.getOutputStream();
    }

    void send(long requestId, Request r) throws IOException {
      out.write(frameBytes(requestId, r));
      out.flush();
    }

    /** One request frame's bytes, as the client writes them. */
    static byte[] frameBytes(long requestId, Request r) {
      ByteBuf b = Unpooled.buffer();
      FrameEncoder.writeTo(MessageCodec.requestFrame(requestId, 0, r), b, Integer.MAX_VALUE);
      byte[] bytes = new byte[b.readableBytes()];
      b.readBytes(bytes);
      b.release();
      return bytes;
    }

    Response read(Kind kind) throws Exception {
      int length = in.readInt();
      byte[] rest = new byte[length];
      in.readFully(rest);
      int k = rest[1] & 0xFF;
      byte[] payload = new byte[length - Frame.HEADER_BYTES];
      System.arraycopy(rest, Frame.HEADER_BYTES, payload, 0, payload.length);
      return MessageCodec.decodeResponse(k == FrameError.ERROR_RESPONSE_KIND ? kind : Kind.fromCode(k), payload);
    }

    void hello(long clientLow) throws Exception {
      send(1, new Request.Hello(Frame.PROTOCOL_VERSION, 7, clientLow, new byte[0]));
      assertInstanceOf(Response.HelloReply.class, read(Kind.HELLO));
    }

    /** True when the server closed the connection (EOF or reset), within the read timeout. */
    boolean closedByServer() throws IOException {
      try {
        // Bounded: the server sends at most a handful of bytes before closing.
        for (int i = 0; i < 1_000_000; i++) {
          if (in.read() < 0) {
            return true;
          }
        }
        return false;
      } catch (EOFException | SocketException e) {
        return true;
      }
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  @BeforeEach
  void start() throws Exception {
    coordinator = new FakeCoordinator();
    endpoint = ClientEndpoint.start("127.0.0.1:0", OPTIONS, coordinator, new Translation(128), EndpointListener.NONE);
  }

  @AfterEach
  void stop() {
    endpoint.close();
  }

  @Test
  void garbageOnOneConnectionNeverAffectsAnother() throws Exception {
    try (Conn good = new Conn(endpoint.localAddress()); Conn bad = new Conn(endpoint.localAddress())) {
      good.hello(1);
      bad.hello(2);
      good.send(10, new Request.AcquireLease("acme", "api", "eu-1", 10, 5));
      SOON.until("the acquire to reach the coordinator", coordinator.submitted::size, n -> n == 1);

      bad.out.write("\u0000\u0000\u0000\u0002garbage that is not a frame".getBytes(StandardCharsets.ISO_8859_1));
      bad.out.flush();
      Response.Error e = assertInstanceOf(Response.Error.class, bad.read(Kind.HELLO));
      assertEquals(ErrorCode.MALFORMED, e.code());
      assertTrue(bad.closedByServer(), "the garbage connection is closed");

      // The good connection's pending request is still answered, and it keeps working.
      coordinator.submitted.get(0).answer().complete(new Result.LeaseGranted(
          new LeaseView(5, "acme", "api", "eu-1", 1, 1, 10, 5, 10, 5, 0, 10_000, 12_000, Mode.HARD, 0, 10_000), 0));
      Response.LeaseReply reply = assertInstanceOf(Response.LeaseReply.class, good.read(Kind.ACQUIRE_LEASE));
      assertEquals(5, reply.lease().leaseId());
      good.send(11, new Request.ClusterStatus());
      assertInstanceOf(Response.ClusterStatusReply.class, good.read(Kind.CLUSTER_STATUS));
      assertEquals(7, coordinator.submitted.get(0).key().clientHigh());
      assertEquals(1, coordinator.submitted.get(0).key().clientLow());
    }
  }

  @Test
  void connectionsBeyondTheMaximumAreClosedAtOnce() throws Exception {
    try (Conn a = new Conn(endpoint.localAddress());
        Conn b = new Conn(endpoint.localAddress());
        Conn c = new Conn(endpoint.localAddress())) {
      a.hello(1);
      b.hello(2);
      c.hello(3);
      SOON.until("three open connections", endpoint::openConnections, n -> n == 3);
      try (Conn d = new Conn(endpoint.localAddress())) {
        assertTrue(d.closedByServer(), "the fourth connection is closed");
      }
      a.send(5, new Request.ClusterStatus());
      assertInstanceOf(Response.ClusterStatusReply.class, a.read(Kind.CLUSTER_STATUS));
    }
  }

  @Test
  void gracefulStopFailsWhatIsStillInFlight() throws Exception {
    try (Conn a = new Conn(endpoint.localAddress())) {
      a.hello(1);
      a.send(20, new Request.AcquireLease("acme", "api", "eu-1", 10, 5));
      SOON.until("the acquire to reach the coordinator", coordinator.submitted::size, n -> n == 1);
      endpoint.stopAccepting();
      a.send(21, new Request.AcquireLease("acme", "api", "eu-1", 10, 5));
      assertEquals(ErrorCode.UNAVAILABLE, assertInstanceOf(Response.Error.class, a.read(Kind.ACQUIRE_LEASE)).code());
      assertEquals(false, endpoint.awaitInFlight(Duration.ofMillis(50)), "the first request is still in flight");
      assertEquals(1, endpoint.failInFlight("node is shutting down"));
      Response.Error e = assertInstanceOf(Response.Error.class, a.read(Kind.ACQUIRE_LEASE));
      assertEquals(ErrorCode.UNAVAILABLE, e.code());
      assertTrue(endpoint.awaitInFlight(Duration.ofSeconds(5)));
    }
  }
}
