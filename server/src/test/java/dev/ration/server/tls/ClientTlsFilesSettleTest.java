package dev.ration.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.protocol.tls.ClientTlsFiles;
import dev.ration.protocol.tls.PemException;
import dev.ration.server.tls.DevCertificates.Issued;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client built while its certificate and key are being replaced, one file after the other,
 * sees a pair that does not match for a moment: it reads the files again until they settle,
 * and refuses a pair that stays wrong.
 */
class ClientTlsFilesSettleTest {
  @TempDir Path dir;

  @Test
  void aPairReplacedFileByFileIsReadOnceSettled() throws Exception {
    Issued ca = TestCertificates.ca("Settle CA");
    TestCertificates.write(dir, ca, "client", TestCertificates.leaf(ca, "old", 30));
    Issued renewed = TestCertificates.leaf(ca, "new", 30);
    // The certificate is replaced; its key follows a moment later.
    DevCertificates.writeFile(dir.resolve("client.crt"), DevCertificates.pem(renewed.certificate()), "rw-r--r--", true);
    CompletableFuture<Void> key = CompletableFuture.runAsync(() -> {
      try {
        TimeUnit.MILLISECONDS.sleep(20);
        DevCertificates.writeFile(dir.resolve("client.key"), DevCertificates.pem(renewed.key()), "rw-------", true);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });

    ClientTlsFiles files = new ClientTlsFiles(dir.resolve("ca.crt"), dir.resolve("client.crt"), dir.resolve("client.key"));

    key.get(10, TimeUnit.SECONDS);
    X509Certificate presented = files.presented().orElseThrow();
    assertEquals(renewed.certificate(), presented);
  }

  @Test
  void aPairThatStaysWrongIsRefusedNamingTheKey() throws IOException {
    Issued ca = TestCertificates.ca("Settle CA");
    TestCertificates.write(dir, ca, "client", TestCertificates.leaf(ca, "old", 30));
    Issued other = TestCertificates.leaf(ca, "other", 30);
    DevCertificates.write(dir, "other", other, true);
    long start = System.nanoTime();

    PemException e = assertThrows(PemException.class,
        () -> new ClientTlsFiles(dir.resolve("ca.crt"), dir.resolve("client.crt"), dir.resolve("other.key")));

    long tookMs = (System.nanoTime() - start) / 1_000_000;
    assertTrue(e.getMessage().contains("is not the private key of the certificate in " + dir.resolve("client.crt")),
        e.getMessage());
    assertTrue(tookMs >= ClientTlsFiles.SETTLE.toMillis() - 50, "gave up after " + tookMs + " ms");
  }
}
