package dev.ration.server.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.wire.ErrorCode;
import dev.ration.protocol.Frame;
import dev.ration.protocol.FrameError;
import dev.ration.protocol.Kind;
import dev.ration.protocol.MessageCodec;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.server.config.EndpointOptions;
import dev.ration.server.endpoint.ClientEndpoint;
import dev.ration.server.endpoint.EndpointListener;
import dev.ration.server.endpoint.Translation;
import dev.ration.statemachine.security.SecurityTable;
import dev.ration.statemachine.security.StoredToken;
import dev.ration.wire.Bytes;
import dev.ration.wire.security.RoleGrant;
import dev.ration.wire.security.TokenView;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Hostile HELLO credentials on real sockets against an endpoint in security mode secure:
 * oversized, truncated, random and almost-valid credentials each get a clear error and a closed
 * connection, never a crash, and a connection authenticated with a good token keeps working
 * throughout. Repeated failures from one address are rate-limited (and counted).
 */
class HostileHelloSocketTest {
  private static final EndpointOptions OPTIONS =
      new EndpointOptions(64 * 1024, 8, 64, Duration.ofSeconds(5), Duration.ofSeconds(30), 2, 256);

  private ClientEndpoint endpoint;
  private Tokens.Minted good;
  private final AtomicInteger refusals = new AtomicInteger();

  @BeforeEach
  void start() throws Exception {
    good = Tokens.mint();
    StoredToken stored = new StoredToken(good.tokenId(), "svc", new Bytes(good.salt()),
        new Bytes(good.hash()), 0, TokenView.NEVER, "test");
    SecurityTable table = SecurityTable.of(List.of(stored),
        List.of(new RoleGrant("svc", "service", "*", 0, "test")));
    Security security = new Security(
        new SecurityOptions(SecurityOptions.Mode.SECURE, List.of(), true, 5),
        () -> table, () -> 1, (identity, reason) -> refusals.incrementAndGet(), System::nanoTime);
    endpoint = ClientEndpoint.start("127.0.0.1:0", OPTIONS,
        new dev.ration.server.endpoint.FakeCoordinator(), new Translation(128),
        EndpointListener.NONE, security);
  }

  @AfterEach
  void stop() {
    endpoint.close();
  }

  static final class Conn implements AutoCloseable {
    final Socket socket;
    final DataInputStream in;
    final OutputStream out;

    Conn(InetSocketAddress address) throws IOException {
      socket = new Socket();
      socket.connect(address, 5_000);
      socket.setSoTimeout(10_000);
      in = new DataInputStream(socket.getInputStream());
      out = socket.getOutputStream();
    }

    void sendRaw(int kind, long requestId, byte[] payload) throws IOException {
      ByteBuffer b = ByteBuffer.allocate(4 + Frame.HEADER_BYTES + payload.length);
      b.putInt(Frame.HEADER_BYTES + payload.length).put((byte) 1).put((byte) kind)
          .putLong(requestId).put(payload);
      out.write(b.array());
      out.flush();
    }

    void hello(byte[] credential) throws IOException {
      sendRaw(Kind.HELLO.code(), 1,
          MessageCodec.encodeRequest(0, new Request.Hello(Frame.PROTOCOL_VERSION, 7, 9, credential)));
    }

    Response read(Kind kind) throws Exception {
      int length = in.readInt();
      byte[] rest = new byte[length];
      in.readFully(rest);
      int k = rest[1] & 0xFF;
      byte[] payload = new byte[length - Frame.HEADER_BYTES];
      System.arraycopy(rest, Frame.HEADER_BYTES, payload, 0, payload.length);
      return MessageCodec.decodeResponse(
          k == FrameError.ERROR_RESPONSE_KIND ? kind : Kind.fromCode(k), payload);
    }

    boolean closedByServer() throws IOException {
      try {
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

  private void refusedAndClosed(byte[] credential, String expected) throws Exception {
    try (Conn bad = new Conn(endpoint.localAddress())) {
      bad.hello(credential);
      Response.Error e = assertInstanceOf(Response.Error.class, bad.read(Kind.HELLO));
      assertEquals(ErrorCode.UNAUTHENTICATED, e.code(), e.toString());
      assertTrue(e.message().contains(expected), e.message());
      assertTrue(bad.closedByServer(), "a refused HELLO closes its connection");
    }
  }

  @Test
  void hostileCredentialsAreRefusedAndNeverDisturbAGoodConnection() throws Exception {
    try (Conn ok = new Conn(endpoint.localAddress())) {
      ok.hello(good.text().getBytes(StandardCharsets.US_ASCII));
      assertInstanceOf(Response.HelloReply.class, ok.read(Kind.HELLO));

      Random random = new Random(42);
      byte[] noise = new byte[300];
      random.nextBytes(noise);
      refusedAndClosed(noise, "is not a Ration token");
      String text = good.text();
      refusedAndClosed(text.substring(0, text.length() - 5).getBytes(StandardCharsets.US_ASCII),
          "is not a Ration token");
      // Right id, wrong secret: the same message as an unknown id.
      int at = text.length() - 10;
      String wrong = text.substring(0, at) + (text.charAt(at) == 'A' ? 'B' : 'A')
          + text.substring(at + 1);
      refusedAndClosed(wrong.getBytes(StandardCharsets.US_ASCII), "or its secret is wrong");

      // Oversized (over the 16 KiB the protocol allows): the codec refuses it before reading it.
      try (Conn big = new Conn(endpoint.localAddress())) {
        int n = MessageCodec.CREDENTIAL_BYTES_MAX + 1;
        ByteBuffer payload = ByteBuffer.allocate(4 + 1 + 8 + 8 + 4 + n);
        payload.putInt(0).put((byte) Frame.PROTOCOL_VERSION).putLong(7).putLong(9).putInt(n);
        big.sendRaw(Kind.HELLO.code(), 1, payload.array());
        Response.Error e = assertInstanceOf(Response.Error.class, big.read(Kind.HELLO));
        assertEquals(ErrorCode.MALFORMED, e.code(), e.toString());
        assertTrue(e.message().contains("credential"), e.message());
      }
      // Truncated: the credential's declared length runs past the frame.
      try (Conn cut = new Conn(endpoint.localAddress())) {
        byte[] payload = MessageCodec.encodeRequest(0,
            new Request.Hello(Frame.PROTOCOL_VERSION, 7, 9, new byte[64]));
        byte[] truncated = java.util.Arrays.copyOf(payload, payload.length - 10);
        cut.sendRaw(Kind.HELLO.code(), 1, truncated);
        Response.Error e = assertInstanceOf(Response.Error.class, cut.read(Kind.HELLO));
        assertEquals(ErrorCode.MALFORMED, e.code(), e.toString());
      }

      // The good connection never noticed.
      ok.sendRaw(Kind.WHOAMI.code(), 2, MessageCodec.encodeRequest(0, new Request.WhoAmI()));
      Response.WhoAmIReply me = assertInstanceOf(Response.WhoAmIReply.class, ok.read(Kind.WHOAMI));
      assertEquals("svc", me.identity());
      assertTrue(refusals.get() >= 3, "refusals counted: " + refusals.get());
    }
  }

  /**
   * Goal: before its HELLO a connection cannot make the node hold a large frame: a length prefix
   * over the largest HELLO is refused at once (FRAME_TOO_LARGE, closed) though it is under the
   * configured frame maximum; after a good HELLO the same size is read as usual.
   */
  @Test
  void framesLargerThanAHelloAreRefusedBeforeTheHello() throws Exception {
    int size = 40 * 1024;
    try (Conn early = new Conn(endpoint.localAddress())) {
      ByteBuffer prefix = ByteBuffer.allocate(4 + Frame.HEADER_BYTES);
      prefix.putInt(Frame.HEADER_BYTES + size).put((byte) 1).put((byte) Kind.TTL_PUT.code())
          .putLong(5);
      early.out.write(prefix.array());
      early.out.flush();
      Response.Error e = assertInstanceOf(Response.Error.class, early.read(Kind.TTL_PUT));
      assertEquals(ErrorCode.FRAME_TOO_LARGE, e.code(), e.toString());
      assertTrue(e.message().contains("before HELLO"), e.message());
      assertTrue(early.closedByServer(), "the stream is not trusted after a refused length");
    }
    try (Conn authed = new Conn(endpoint.localAddress())) {
      authed.hello(good.text().getBytes(StandardCharsets.US_ASCII));
      assertInstanceOf(Response.HelloReply.class, authed.read(Kind.HELLO));
      authed.sendRaw(Kind.TTL_PUT.code(), 6, new byte[size]);
      Response r = authed.read(Kind.TTL_PUT);
      if (r instanceof Response.Error e) {
        assertTrue(e.code() != ErrorCode.FRAME_TOO_LARGE, "after HELLO the frame is read: " + e);
      }
    }
  }

  @Test
  void repeatedFailuresFromOneAddressAreRateLimited() throws Exception {
    for (int i = 0; i < 5; i++) {
      refusedAndClosed("rtn_nonsense".getBytes(StandardCharsets.US_ASCII), "is not a Ration token");
    }
    // The address has used its 5 failures a minute: even the good token must wait now.
    try (Conn next = new Conn(endpoint.localAddress())) {
      next.hello(good.text().getBytes(StandardCharsets.US_ASCII));
      Response.Error e = assertInstanceOf(Response.Error.class, next.read(Kind.HELLO));
      assertEquals(ErrorCode.UNAUTHENTICATED, e.code());
      assertTrue(e.message().contains("too many failed token authentications"), e.message());
      assertTrue(e.retryAfterMillis() > 0, e.toString());
    }
  }
}
