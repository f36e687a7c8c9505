package dev.ration.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.LimitSpec;
import dev.ration.client.LeaseResult;
import dev.ration.client.RationClient;
import dev.ration.client.RenewalReport;
import dev.ration.client.RationClientOptions;
import dev.ration.client.RationException;
import dev.ration.client.RationFailedException;
import dev.ration.testkit.FreePorts;
import dev.ration.wire.ErrorCode;
import dev.ration.protocol.Response;
import dev.ration.client.tls.ClientTls;
import dev.ration.protocol.tls.PemFiles;
import dev.ration.protocol.tls.ReloadingKeyManager;
import dev.ration.protocol.tls.ReloadingTrustManager;
import dev.ration.server.RationNode;
import dev.ration.server.config.EndpointOptions;
import dev.ration.server.config.ServerConfig;
import dev.ration.server.config.TlsOptions;
import dev.ration.server.consensus.ConsensusOptions;
import dev.ration.server.consensus.Peer;
import dev.ration.server.tls.DevCertificates.Issued;
import dev.ration.statemachine.StateOptions;
import dev.ration.testkit.Waits;
import dev.ration.wire.Outcome;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * A whole node with TLS on, on real sockets: the client port requires client certificates of
 * its CA, the admin port serves HTTPS, and certificates rotate without a restart. Every client
 * here is the real client library or a real JDK TLS socket.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class TlsNodeTest {
  Path dir;
  Issued ca;
  Issued foreignCa;
  RationNode node;
  ServerConfig config;

  @BeforeAll
  void startNode() throws Exception {
    dir = Files.createTempDirectory("ration-tls-node-");
    ca = TestCertificates.ca("Test CA " + DevCertificates.shortId());
    foreignCa = TestCertificates.ca("Foreign CA " + DevCertificates.shortId());
    TestCertificates.write(dir, ca, "node", TestCertificates.node(ca, "n1", 30));
    DevCertificates.write(dir, "client", TestCertificates.leaf(ca, "service-a", 30), true);
    DevCertificates.write(dir, "foreign-client", TestCertificates.leaf(foreignCa, "intruder", 30), true);
    DevCertificates.writeFile(dir.resolve("foreign-ca.crt"), DevCertificates.pem(foreignCa.certificate()), "rw-r--r--", true);

    String client = "127.0.0.1:" + FreePorts.next();
    String admin = "127.0.0.1:" + FreePorts.next();
    Peer self = new Peer("n1", "127.0.0.1:" + FreePorts.next(), client, admin);
    ConsensusOptions consensus = new ConsensusOptions(
        "n1", UUID.nameUUIDFromBytes("tls-node-test".getBytes()).toString(), List.of(self), dir.resolve("data"),
        Duration.ofMillis(300), Duration.ofMillis(600), Duration.ofSeconds(3),
        10_000, 0, 1 << 20, 256, 64 << 10, Duration.ofMillis(2), 4, 1_000,
        Duration.ofMillis(100), 100, StateOptions.defaults());
    EndpointOptions endpoint = new EndpointOptions(1 << 20, 256, 256, Duration.ofSeconds(5), Duration.ofSeconds(30), 2, 256);
    // A short reload interval so the rotation test sees the new certificate quickly.
    TlsOptions tls = TestCertificates.options(dir, "node", TlsOptions.ClientAuth.REQUIRED, Duration.ofMillis(200));
    config = new ServerConfig(consensus, client, admin, endpoint, Duration.ofSeconds(2), tls);
    node = RationNode.start(config);
    try (RationClient c = client(goodTls())) {
      Waits.upTo(Duration.ofSeconds(60)).every(Duration.ofMillis(200)).until("a limit set",
          () -> {
            try {
              return c.setLimit(LimitSpec.builder("acme", "api").ratePerSecond(1_000_000).burst(1_000_000)
                  .leaseDuration(Duration.ofMinutes(10)).build()).outcome();
            } catch (RationException notYet) {
              return null;
            }
          }, o -> o == Outcome.SUCCESS || o == Outcome.VERSION_MISMATCH);
    }
  }

  @AfterAll
  void stopNode() throws Exception {
    if (node != null) {
      node.shutdown();
    }
  }

  ClientTls goodTls() {
    return ClientTls.trusting(dir.resolve("ca.crt")).withKeyPair(dir.resolve("client.crt"), dir.resolve("client.key"));
  }

  RationClient client(ClientTls tls) {
    return new RationClient(RationClientOptions.builder().address(config.clientAddress())
        .requestDeadline(Duration.ofSeconds(20)).connectTimeout(Duration.ofSeconds(10)).tls(tls).build());
  }

  @Test
  void clientWithACertificateOfTheCaIsServed() {
    try (RationClient c = client(goodTls())) {
      assertTrue(c.getLimit("acme", "api").isPresent());
    }
  }

  @Test
  void clientWithoutACertificateIsRefusedDefinitelyWithTheReason() {
    try (RationClient c = client(ClientTls.trusting(dir.resolve("ca.crt")))) {
      RationException e = assertThrows(RationException.class, () -> c.getLimit("acme", "api"));
      assertEquals(ErrorCode.UNAUTHENTICATED, e.code(), e.getMessage());
      assertInstanceOf(RationFailedException.class, e);
      assertTrue(e.getMessage().contains("requires a client certificate and this client presents none"), e.getMessage());
    }
  }

  @Test
  void clientWithACertificateOfAnotherCaIsRefused() {
    ClientTls tls = ClientTls.trusting(dir.resolve("ca.crt"))
        .withKeyPair(dir.resolve("foreign-client.crt"), dir.resolve("foreign-client.key"));
    try (RationClient c = client(tls)) {
      RationException e = assertThrows(RationException.class, () -> c.getLimit("acme", "api"));
      assertEquals(ErrorCode.UNAUTHENTICATED, e.code(), e.getMessage());
      assertTrue(e.getMessage().contains("refused this client's certificate"), e.getMessage());
    }
  }

  @Test
  void clientTrustingAnotherCaRefusesTheServer() {
    ClientTls tls = ClientTls.trusting(dir.resolve("foreign-ca.crt")).withKeyPair(dir.resolve("client.crt"), dir.resolve("client.key"));
    try (RationClient c = client(tls)) {
      RationException e = assertThrows(RationException.class, () -> c.getLimit("acme", "api"));
      assertEquals(ErrorCode.UNAUTHENTICATED, e.code(), e.getMessage());
      assertTrue(e.getMessage().contains("is not signed by a trusted CA"), e.getMessage());
    }
  }

  @Test
  void plaintextClientGetsNoAnswer() {
    try (RationClient c = new RationClient(RationClientOptions.builder().address(config.clientAddress())
        .requestDeadline(Duration.ofSeconds(3)).maxRetries(2).build())) {
      assertThrows(RationException.class, () -> c.getLimit("acme", "api"));
    }
  }

  /**
   * Garbage, truncated handshakes and random bytes on the TLS port: each such connection is
   * closed, the node stays up, and a client connected all along keeps being served.
   */
  @Test
  void hostileHandshakesNeverHurtOtherConnections() throws Exception {
    Random random = new Random(42);
    InetSocketAddress target = new InetSocketAddress("127.0.0.1", node.endpoint().localAddress().getPort());
    try (RationClient good = client(goodTls())) {
      assertTrue(good.getLimit("acme", "api").isPresent());
      for (int i = 0; i < 60; i++) {
        byte[] bytes;
        switch (i % 4) {
          case 0 -> { // random bytes
            bytes = new byte[1 + random.nextInt(4096)];
            random.nextBytes(bytes);
          }
          case 1 -> // a TLS handshake record header announcing 16 KiB, then nothing much
            bytes = new byte[] {0x16, 0x03, 0x01, 0x40, 0x00, 0x01, 0x00, 0x3f};
          case 2 -> // a plaintext Ration frame, as a client without TLS would send
            bytes = new byte[] {0, 0, 0, 12, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0};
          default -> { // a record header with an absurd length, then random bytes
            bytes = new byte[2048];
            random.nextBytes(bytes);
            bytes[0] = 0x16;
            bytes[1] = 0x03;
            bytes[2] = 0x03;
            bytes[3] = (byte) 0xff;
            bytes[4] = (byte) 0xff;
          }
        }
        try (Socket s = new Socket()) {
          s.connect(target, 5_000);
          s.setSoTimeout(5_000);
          OutputStream out = s.getOutputStream();
          try {
            out.write(bytes);
            out.flush();
            s.shutdownOutput();
            InputStream in = s.getInputStream();
            while (in.read() >= 0) {
              // drain until the node closes the connection
            }
          } catch (IOException closedByTheNode) {
            // a reset is as good as a close
          }
        }
        if (i % 10 == 0) {
          assertTrue(good.getLimit("acme", "api").isPresent(), "after hostile connection " + i);
        }
      }
      assertTrue(good.getLimit("acme", "api").isPresent());
    }
    String metrics = https("/metrics").body();
    Matcher m = Pattern.compile("(?m)^ration_tls_handshake_failures_total ([0-9.]+)").matcher(metrics);
    assertTrue(m.find(), metrics);
    assertTrue(Double.parseDouble(m.group(1)) >= 30, "handshake failures counted: " + m.group(1));
  }

  HttpResponse<String> https(String path) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
        .sslContext(TestCertificates.trusting(dir.resolve("ca.crt"))).build();
    return http.send(HttpRequest.newBuilder(URI.create("https://" + config.adminAddress() + path))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void adminPortServesHttpsOnly() throws Exception {
    HttpResponse<String> health = https("/health");
    assertEquals(200, health.statusCode(), health.body());
    String metrics = https("/metrics").body();
    assertTrue(metrics.contains("ration_tls_insecure 0.0") || metrics.contains("ration_tls_insecure 0"), metrics);
    long notAfter = node.tls().certificate().getNotAfter().toInstant().getEpochSecond();
    for (String port : List.of("client", "raft", "admin")) {
      Matcher m = Pattern.compile("(?m)^ration_tls_certificate_expiry_seconds\\{port=\"" + port + "\"} ([0-9.eE+]+)").matcher(metrics);
      assertTrue(m.find(), "no expiry gauge for " + port + " in\n" + metrics);
      assertEquals(notAfter, (long) Double.parseDouble(m.group(1)));
    }

    HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    assertThrows(IOException.class, () -> plain.send(
        HttpRequest.newBuilder(URI.create("http://" + config.adminAddress() + "/health")).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString()));
    HttpClient foreign = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
        .sslContext(TestCertificates.trusting(dir.resolve("foreign-ca.crt"))).build();
    IOException refused = assertThrows(IOException.class, () -> foreign.send(
        HttpRequest.newBuilder(URI.create("https://" + config.adminAddress() + "/health")).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString()));
    assertTrue(String.valueOf(refused.getMessage()).contains("not signed by a trusted CA"), refused.toString());
  }

  /** The serial number of the certificate the client port presents to a new connection now. */
  BigInteger presentedSerial() throws Exception {
    SSLContext ctx = SSLContext.getInstance("TLSv1.3");
    ctx.init(new KeyManager[] {new ReloadingKeyManager(PemFiles.privateKey(dir.resolve("client.key")),
            PemFiles.certificates(dir.resolve("client.crt")))},
        new TrustManager[] {new ReloadingTrustManager(PemFiles.certificates(dir.resolve("ca.crt")))}, null);
    try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", node.endpoint().localAddress().getPort())) {
      s.setSoTimeout(10_000);
      s.startHandshake();
      return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSerialNumber();
    }
  }

  /**
   * Rotation under a renewal load: renewals on open connections, and new connections opening
   * all along; the node's certificate is replaced on disk (key first, then certificate, so the
   * node sees a mismatched pair for a moment and must keep the old one); no request fails, new
   * connections get the new certificate, and the expiry gauge moves.
   */
  @Test
  void rotationUnderRenewalLoadFailsNoRequest() throws Exception {
    BigInteger before = presentedSerial();
    assertEquals(node.tls().certificate().getSerialNumber(), before);
    long expiryBefore = node.tls().certificateExpiryEpochSeconds();

    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    AtomicLong renewals = new AtomicLong();
    AtomicLong newConnections = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> threads = new ArrayList<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    for (int w = 0; w < 3; w++) {
      String holder = "rot-" + w;
      threads.add(new Thread(() -> {
        try (RationClient c = client(goodTls())) {
          LeaseResult lease = c.acquireLease("acme", "api", holder, 10, 10);
          long id = lease.lease().orElseThrow().leaseId();
          long version = lease.lease().orElseThrow().version();
          while (!stop.get() && System.nanoTime() < deadline) {
            LeaseResult r = c.renewLease(RenewalReport.builder(id, version).demand(10, 10).build());
            if (r.outcome() == Outcome.SUCCESS) {
              version = r.lease().orElseThrow().version();
            }
            renewals.incrementAndGet();
          }
        } catch (Throwable t) {
          failures.add(t);
        }
      }, "renewer-" + w));
    }
    threads.add(new Thread(() -> {
      // New connections during the rotation: each client opens its own.
      while (!stop.get() && System.nanoTime() < deadline) {
        try (RationClient c = client(goodTls())) {
          c.getLimit("acme", "api");
          newConnections.incrementAndGet();
        } catch (Throwable t) {
          failures.add(t);
        }
      }
    }, "connector"));
    threads.forEach(Thread::start);
    try {
      Waits.upTo(Duration.ofSeconds(30)).every(Duration.ofMillis(50)).until("load running",
          () -> renewals.get() > 50 && newConnections.get() > 2, ok -> ok);

      Issued next = TestCertificates.node(ca, "n1", 60);
      DevCertificates.writeFile(dir.resolve("node.key"), DevCertificates.pem(next.key()), "rw-------", true);
      Thread.sleep(500); // a couple of reload intervals with a key that does not match
      DevCertificates.writeFile(dir.resolve("node.crt"), DevCertificates.pem(next.certificate()), "rw-r--r--", true);

      BigInteger after = Waits.upTo(Duration.ofSeconds(30)).every(Duration.ofMillis(100))
          .until("the new certificate on new connections", this::presentedSerial,
              s -> s.equals(next.certificate().getSerialNumber()));
      assertNotEquals(before, after);
      long renewalsAtRotation = renewals.get();
      long connectionsAtRotation = newConnections.get();
      Waits.upTo(Duration.ofSeconds(30)).every(Duration.ofMillis(50)).until("load after the rotation",
          () -> renewals.get() > renewalsAtRotation + 50 && newConnections.get() > connectionsAtRotation + 2, ok -> ok);
      assertEquals(next.certificate().getNotAfter().toInstant().getEpochSecond(), node.tls().certificateExpiryEpochSeconds());
      assertTrue(node.tls().certificateExpiryEpochSeconds() > expiryBefore);
    } finally {
      stop.set(true);
      for (Thread t : threads) {
        t.join(30_000);
      }
    }
    assertTrue(failures.isEmpty(), "requests failed during the rotation: " + failures);
  }
}
