package dev.ration.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.server.config.ConfigException;
import dev.ration.server.config.TlsOptions;
import dev.ration.server.tls.DevCertificates.Issued;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every bad certificate setting is refused at start, with a problem that names the config key
 * and the file: a node must not start half-secured, and an operator must know which file to fix.
 */
class ServerTlsValidationTest {
  @TempDir Path dir;
  Issued ca;

  @BeforeEach
  void goodFiles() {
    ca = TestCertificates.ca("Test CA");
    TestCertificates.write(dir, ca, "node", TestCertificates.node(ca, "n1", 30));
  }

  TlsOptions options() {
    return TestCertificates.options(dir, "node", TlsOptions.ClientAuth.REQUIRED, Duration.ofSeconds(10));
  }

  String refusal() {
    ConfigException e = assertThrows(ConfigException.class, () -> ServerTls.load(options()));
    return e.getMessage();
  }

  static void assertNames(String message, String key, Path file, String what) {
    assertTrue(message.contains(key + ": " + file), "no '" + key + ": " + file + "' in: " + message);
    assertTrue(message.contains(what), "no '" + what + "' in: " + message);
  }

  @Test
  void goodFilesLoad() throws Exception {
    try (ServerTls tls = ServerTls.load(options())) {
      assertEquals("CN=n1,O=Ration", tls.certificate().getSubjectX500Principal().getName());
      assertTrue(tls.certificateExpiryEpochSeconds() > Instant.now().getEpochSecond());
    }
  }

  @Test
  void missingFilesAreNamedWithTheirKeys() throws Exception {
    Files.delete(dir.resolve("node.crt"));
    Files.delete(dir.resolve("ca.crt"));
    String m = refusal();
    assertNames(m, "tls.cert", dir.resolve("node.crt"), "no such file");
    assertNames(m, "tls.ca", dir.resolve("ca.crt"), "no such file");
    assertTrue(m.contains("ration cert create-ca"), "no hint how to make certificates: " + m);
  }

  @Test
  void garbledPemIsRefused() throws Exception {
    Files.writeString(dir.resolve("node.crt"), "-----BEGIN CERTIFICATE-----\nnot base64 at all!\n-----END CERTIFICATE-----\n");
    assertNames(refusal(), "tls.cert", dir.resolve("node.crt"), "not valid base64");
    Files.writeString(dir.resolve("node.crt"), "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
    assertNames(refusal(), "tls.cert", dir.resolve("node.crt"), "not a valid X.509 certificate");
    Files.writeString(dir.resolve("node.key"), "hello\n");
    assertNames(refusal(), "tls.key", dir.resolve("node.key"), "holds no PEM private key");
    Files.writeString(dir.resolve("ca.crt"), "");
    assertNames(refusal(), "tls.ca", dir.resolve("ca.crt"), "holds no PEM certificate");
  }

  @Test
  void unreadableFileIsRefused() throws Exception {
    Files.delete(dir.resolve("node.key"));
    Files.createDirectory(dir.resolve("node.key"));
    assertNames(refusal(), "tls.key", dir.resolve("node.key"), "cannot read");
  }

  @Test
  void keyOfAnotherCertificateIsRefused() throws Exception {
    Issued other = TestCertificates.leaf(ca, "n2", 30);
    DevCertificates.writeFile(dir.resolve("node.key"), DevCertificates.pem(other.key()), "rw-------", true);
    assertNames(refusal(), "tls.key", dir.resolve("node.key"), "is not the private key of the certificate in " + dir.resolve("node.crt"));
  }

  @Test
  void expiredCertificateIsRefused() throws Exception {
    DevCertificates.write(dir, "node", TestCertificates.expired(ca, "n1"), true);
    assertNames(refusal(), "tls.cert", dir.resolve("node.crt"), "expired at");
  }

  @Test
  void notYetValidCertificateIsRefused() throws Exception {
    Instant now = Instant.now();
    DevCertificates.write(dir, "node",
        DevCertificates.node(ca, "n1", TestCertificates.LOOPBACK, now.plus(Duration.ofDays(1)), now.plus(Duration.ofDays(2))), true);
    assertNames(refusal(), "tls.cert", dir.resolve("node.crt"), "is not valid before");
  }

  @Test
  void certificateOfAnotherCaIsRefused() throws Exception {
    Issued foreign = TestCertificates.ca("Foreign CA");
    DevCertificates.write(dir, "node", TestCertificates.node(foreign, "n1", 30), true);
    assertNames(refusal(), "tls.cert", dir.resolve("node.crt"), "is not signed by the CA in tls.ca " + dir.resolve("ca.crt"));
  }

  /**
   * A certificate of the right CA without the node name (a client's, or a node's issued before
   * nodes had one) would be refused by every peer: the node says so at start, and how to mend it.
   */
  @Test
  void certificateWithoutTheNodeUsageIsRefused() throws Exception {
    DevCertificates.write(dir, "node", TestCertificates.leaf(ca, "n1", 30), true);
    String m = refusal();
    assertNames(m, "tls.cert", dir.resolve("node.crt"), "the certificate 'CN=n1,O=Ration' is not a node certificate (no subject alternative name "
        + NodeCertificates.NODE_URI_PREFIX + "<id>)");
    assertTrue(m.contains("ration cert create-node n1 --host HOST,... --overwrite"), m);
  }

  @Test
  void keysAreWrittenOwnerOnly() throws Exception {
    assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
        Files.getPosixFilePermissions(dir.resolve("node.key"))));
  }
}
