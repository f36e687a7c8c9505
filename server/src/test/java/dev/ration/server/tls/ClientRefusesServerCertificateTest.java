package dev.ration.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.RationException;
import dev.ration.client.RationFailedException;
import dev.ration.wire.ErrorCode;
import dev.ration.client.tls.ClientTls;
import dev.ration.protocol.tls.ReloadingKeyManager;
import dev.ration.server.tls.DevCertificates.Issued;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client library refuses a server whose certificate is expired, from another CA, or does
 * not name the address dialled, and says which in the exception: a real TLS server socket
 * presents each certificate (a node would refuse to start with the first two).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ClientRefusesServerCertificateTest {
  @TempDir Path dir;

  /** Serves TLS with {@code cert} on a loopback port, handshaking every connection, until closed. */
  static final class Server implements AutoCloseable {
    final SSLServerSocket socket;
    final Thread thread;

    Server(Issued cert) throws Exception {
      SSLContext ctx = SSLContext.getInstance("TLSv1.3");
      ctx.init(new KeyManager[] {new ReloadingKeyManager(cert.key(), List.of(cert.certificate()))}, null, null);
      socket = (SSLServerSocket) ctx.getServerSocketFactory().createServerSocket(0, 8, InetAddress.getLoopbackAddress());
      thread = new Thread(() -> {
        while (!socket.isClosed()) {
          try (SSLSocket s = (SSLSocket) socket.accept()) {
            s.setSoTimeout(5_000);
            s.startHandshake();
            s.getInputStream().read();
          } catch (IOException e) {
            // refused handshakes and closes are what this server is for
          }
        }
      }, "tls-server");
      thread.setDaemon(true);
      thread.start();
    }

    String address() {
      return "127.0.0.1:" + socket.getLocalPort();
    }

    @Override
    public void close() throws Exception {
      socket.close();
      thread.join(10_000);
    }
  }

  RationException refusal(Issued ca, Issued serverCert) throws Exception {
    DevCertificates.writeFile(dir.resolve("ca.crt"), DevCertificates.pem(ca.certificate()), "rw-r--r--", true);
    try (Server server = new Server(serverCert);
         RationClient client = new RationClient(RationClientOptions.builder().address(server.address())
             .requestDeadline(Duration.ofSeconds(20)).tls(ClientTls.trusting(dir.resolve("ca.crt"))).build())) {
      long start = System.nanoTime();
      RationException e = assertThrows(RationException.class, () -> client.getLimit("acme", "api"));
      assertEquals(ErrorCode.UNAUTHENTICATED, e.code(), e.getMessage());
      assertInstanceOf(RationFailedException.class, e);
      // Definite and at once: a refused certificate is not retried until the deadline.
      assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(15), "took too long: " + e.getMessage());
      return e;
    }
  }

  @Test
  void expiredServerCertificate() throws Exception {
    Issued ca = TestCertificates.ca("Test CA");
    RationException e = refusal(ca, TestCertificates.expired(ca, "n1"));
    assertTrue(e.getMessage().contains("the server's certificate 'CN=n1,O=Ration' expired at"), e.getMessage());
  }

  @Test
  void notYetValidServerCertificate() throws Exception {
    Issued ca = TestCertificates.ca("Test CA");
    Instant now = Instant.now();
    Issued later = DevCertificates.leaf(ca, "n1", TestCertificates.LOOPBACK, now.plus(Duration.ofDays(1)), now.plus(Duration.ofDays(2)));
    assertTrue(refusal(ca, later).getMessage().contains("is not valid before"));
  }

  @Test
  void serverCertificateOfAnotherCa() throws Exception {
    Issued ca = TestCertificates.ca("Test CA");
    Issued other = TestCertificates.ca("Other CA");
    RationException e = refusal(ca, TestCertificates.leaf(other, "n1", 30));
    assertTrue(e.getMessage().contains("issued by 'CN=Other CA,O=Ration', is not signed by a trusted CA (trusted: 'CN=Test CA,O=Ration')"),
        e.getMessage());
  }

  @Test
  void serverCertificateForAnotherHost() throws Exception {
    Issued ca = TestCertificates.ca("Test CA");
    Instant now = Instant.now();
    Issued elsewhere = DevCertificates.leaf(ca, "n1", List.of("db.example.com"), now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)));
    RationException e = refusal(ca, elsewhere);
    assertTrue(e.getMessage().contains("does not name the address dialled"), e.getMessage());
  }

  /** A plaintext server answers a ClientHello with a frame of its own protocol and closes. */
  @Test
  void plaintextServerIsNamedAsSuch() throws Exception {
    Issued ca = TestCertificates.ca("Test CA");
    DevCertificates.writeFile(dir.resolve("ca.crt"), DevCertificates.pem(ca.certificate()), "rw-r--r--", true);
    try (java.net.ServerSocket plain = new java.net.ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
      Thread t = new Thread(() -> {
        try (java.net.Socket s = plain.accept()) {
          s.getInputStream().read(new byte[64]);
          s.getOutputStream().write(new byte[] {0, 0, 0, 12, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9});
          s.getOutputStream().flush();
        } catch (IOException e) {
          // the client hung up first
        }
      });
      t.setDaemon(true);
      t.start();
      try (RationClient client = new RationClient(RationClientOptions.builder().address("127.0.0.1:" + plain.getLocalPort())
          .requestDeadline(Duration.ofSeconds(20)).tls(ClientTls.trusting(dir.resolve("ca.crt"))).build())) {
        RationException e = assertThrows(RationException.class, () -> client.getLimit("acme", "api"));
        assertEquals(ErrorCode.UNAUTHENTICATED, e.code(), e.getMessage());
        assertTrue(e.getMessage().contains("does not speak TLS"), e.getMessage());
      }
    }
  }

  @Test
  void missingCaFileFailsAtConstruction() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RationClient(
        RationClientOptions.builder().address("127.0.0.1:1").tls(ClientTls.trusting(dir.resolve("nope.crt"))).build()));
    assertTrue(e.getMessage().contains(dir.resolve("nope.crt") + ": no such file"), e.getMessage());
  }
}
