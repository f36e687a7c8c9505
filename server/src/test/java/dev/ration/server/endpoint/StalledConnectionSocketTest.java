package dev.ration.server.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.protocol.Kind;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.server.config.EndpointOptions;
import dev.ration.server.config.TenantFairness;
import dev.ration.server.endpoint.EndpointSocketTest.Conn;
import dev.ration.testkit.Waits;
import dev.ration.wire.ErrorCode;
import java.net.SocketTimeoutException;
import dev.ration.server.tls.DevCertificates;
import dev.ration.server.tls.TestCertificates;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Peers that hold a connection without using it, on a real socket: one that never sends HELLO,
 * one that starts a frame and stops, one that dribbles a frame a byte at a time. Each is closed
 * after its timeout and counted, so such peers cannot keep {@code maxConnections} full; an
 * honest connection idle between frames, and a slow one whose frames do complete, are not.
 */
class StalledConnectionSocketTest {
  private static final Duration HELLO_TIMEOUT = Duration.ofMillis(600);
  private static final Duration FRAME_TIMEOUT = Duration.ofMillis(800);
  private static final int MAX_CONNECTIONS = 4;
  private static final EndpointOptions OPTIONS = new EndpointOptions(64 * 1024, 8, MAX_CONNECTIONS,
      Duration.ofSeconds(5), Duration.ofSeconds(30), 2, 256, TenantFairness.ALL, HELLO_TIMEOUT,
      FRAME_TIMEOUT);
  private static final Waits SOON = Waits.upTo(Duration.ofSeconds(10)).every(Duration.ofMillis(10));

  private final Map<String, AtomicInteger> timedOut = new ConcurrentHashMap<>();
  private final AtomicInteger open = new AtomicInteger();
  private ClientEndpoint endpoint;

  @BeforeEach
  void start() throws Exception {
    endpoint = ClientEndpoint.start("127.0.0.1:0", OPTIONS, new FakeCoordinator(),
        new Translation(128), listener());
  }

  private EndpointListener listener() {
    return new EndpointListener() {
      @Override
      public void requestAnswered(String kind, ErrorCode code, String outcome, long latencyNanos) {}

      @Override
      public void connectionOpened() {
        open.incrementAndGet();
      }

      @Override
      public void connectionClosed() {
        open.decrementAndGet();
      }

      @Override
      public void connectionRefused() {}

      @Override
      public void connectionTimedOut(String reason) {
        timedOut.computeIfAbsent(reason, r -> new AtomicInteger()).incrementAndGet();
      }
    };
  }

  @AfterEach
  void stop() {
    endpoint.close();
  }

  private int timedOut(String reason) {
    AtomicInteger n = timedOut.get(reason);
    return n == null ? 0 : n.get();
  }

  @Test
  void silentConnectionsAreClosedAfterTheHelloTimeoutAndFreeTheirPlaces() throws Exception {
    List<Conn> silent = new ArrayList<>();
    // Taken before the first connection opens, so the server's hello clock for it starts later:
    // a pause of the test thread between the connections and the reads cannot shorten it.
    long start = System.nanoTime();
    for (int i = 0; i < MAX_CONNECTIONS; i++) {
      silent.add(new Conn(endpoint.localAddress()));
    }
    SOON.until("all places taken", open::get, n -> n == MAX_CONNECTIONS);
    long firstClosedMillis = -1;
    for (Conn c : silent) {
      // The server says why before it closes: a definite HELLO_REQUIRED, then end of stream.
      Response r = c.read(Kind.HELLO);
      Response.Error e = assertInstanceOf(Response.Error.class, r);
      assertEquals(ErrorCode.HELLO_REQUIRED, e.code(), e.message());
      assertTrue(e.message().contains("endpoint.hello-timeout"), e.message());
      assertTrue(c.closedByServer());
      if (firstClosedMillis < 0) {
        firstClosedMillis = (System.nanoTime() - start) / 1_000_000;
      }
      c.close();
    }
    assertTrue(firstClosedMillis >= HELLO_TIMEOUT.toMillis() - 100,
        "the first silent connection closed too early: " + firstClosedMillis + " ms after it opened");
    SOON.until("hello timeouts counted", () -> timedOut("hello"), n -> n == MAX_CONNECTIONS);
    SOON.until("places freed", open::get, n -> n == 0);

    // The places are usable again.
    try (Conn c = new Conn(endpoint.localAddress())) {
      c.hello(1);
    }
  }

  /**
   * Goal: on a TLS port a peer that opens TCP and never begins its handshake is closed by the
   * hello timeout and counted as timed out, as a silent plaintext connection is.
   */
  @Test
  void aRawTcpConnectionOnATlsPortIsClosedAndCounted() throws Exception {
    DevCertificates.Issued ca = TestCertificates.ca("stall-ca");
    DevCertificates.Issued node = TestCertificates.node(ca, "n1", 1);
    io.netty.handler.ssl.SslContext tls = io.netty.handler.ssl.SslContextBuilder
        .forServer(node.key(), node.certificate()).build();
    ClientEndpoint secured = ClientEndpoint.start("127.0.0.1:0", OPTIONS, new FakeCoordinator(),
        new Translation(128), listener(), tls);
    try (java.net.Socket raw = new java.net.Socket()) {
      raw.connect(secured.localAddress(), 5_000);
      raw.setSoTimeout(10_000);
      int before = timedOut("hello") + timedOut("handshake");
      // The server ends the stream (after a TLS alert or nothing) once the hello timeout passed.
      java.io.InputStream in = raw.getInputStream();
      long start = System.nanoTime();
      while (in.read() >= 0) {
        // drain whatever the server sends before it closes
      }
      assertTrue(System.nanoTime() - start < Duration.ofSeconds(9).toNanos(),
          "closed by the hello timeout, not left to the TLS handshake's own 10 s");
      SOON.until("the idle TLS connection counted", () -> timedOut("hello") + timedOut("handshake"),
          n -> n == before + 1);
    } finally {
      secured.close();
    }
  }

  @Test
  void aFrameBegunAndNotFinishedClosesTheConnection() throws Exception {
    try (Conn c = new Conn(endpoint.localAddress())) {
      c.hello(2);
      // A length prefix promising 40 bytes, then 3 of them, then nothing.
      c.out.write(new byte[] {0, 0, 0, 40, 1, (byte) Kind.GET_LIMIT.code(), 0});
      c.out.flush();
      Response.Error e = assertInstanceOf(Response.Error.class, c.read(Kind.GET_LIMIT));
      assertEquals(ErrorCode.MALFORMED, e.code(), e.message());
      assertTrue(e.message().contains("endpoint.frame-timeout"), e.message());
      assertTrue(c.closedByServer());
    }
    assertEquals(1, timedOut("frame"));
    assertEquals(0, timedOut("hello"));
  }

  @Test
  void aFrameDribbledAByteAtATimeIsStillOneStalledFrame() throws Exception {
    try (Conn c = new Conn(endpoint.localAddress())) {
      c.hello(3);
      c.socket.setSoTimeout(150);
      byte[] promise = {0, 0, 0, 100, 1, (byte) Kind.GET_LIMIT.code()};
      // Taken before the frame begins, so the server's frame clock starts later.
      long start = System.nanoTime();
      c.out.write(promise);
      c.out.flush();
      // One more byte every 100 ms: bytes keep coming, the frame never completes (100 bytes
      // would take 10 s), and the server closes it within about its frame timeout.
      boolean closed = false;
      for (int i = 0; i < 60 && !closed; i++) {
        try {
          c.out.write(0);
          c.out.flush();
        } catch (java.io.IOException reset) {
          closed = true;
          break;
        }
        try {
          if (c.in.read() >= 0) {
            // The error frame's first byte: the server is closing; read the rest to its end.
            c.socket.setSoTimeout(5_000);
            closed = c.closedByServer();
          } else {
            closed = true;
          }
        } catch (SocketTimeoutException stillOpen) {
          // nothing from the server yet
        }
      }
      long tookMillis = (System.nanoTime() - start) / 1_000_000;
      assertTrue(closed, "a dribbled frame kept the connection open for " + tookMillis + " ms");
      assertTrue(tookMillis >= FRAME_TIMEOUT.toMillis() - 100 && tookMillis < 4_000,
          "closed after " + tookMillis + " ms");
    }
    SOON.until("frame timeout counted", () -> timedOut("frame"), n -> n == 1);
  }

  @Test
  void idleBetweenFramesAndSlowButCompleteFramesAreLeftAlone() throws Exception {
    try (Conn idle = new Conn(endpoint.localAddress()); Conn slow = new Conn(endpoint.localAddress())) {
      idle.hello(4);
      slow.hello(5);
      // Three frame timeouts long: the idle connection sends nothing, the slow one sends a whole
      // request every 300 ms, each in two halves 150 ms apart.
      long until = System.nanoTime() + 3 * FRAME_TIMEOUT.toNanos();
      int answered = 0;
      for (long id = 10; System.nanoTime() < until && id < 100; id++) {
        // CANCEL of a request never sent: answered by the endpoint itself (NOT_FOUND).
        byte[] frame = Conn.frameBytes(id, new Request.Cancel(12_345));
        slow.out.write(frame, 0, frame.length / 2);
        slow.out.flush();
        Thread.sleep(150); // half a frame in the buffer for a while, well inside the timeout
        slow.out.write(frame, frame.length / 2, frame.length - frame.length / 2);
        slow.out.flush();
        assertInstanceOf(Response.CancelReply.class, slow.read(Kind.CANCEL));
        answered++;
        Thread.sleep(150);
      }
      assertTrue(answered >= 3, "answered " + answered);
      // The idle one still works.
      idle.send(99, new Request.Cancel(12_345));
      assertInstanceOf(Response.CancelReply.class, idle.read(Kind.CANCEL));
    }
    assertEquals(0, timedOut("frame") + timedOut("hello"), timedOut.toString());
  }
}
