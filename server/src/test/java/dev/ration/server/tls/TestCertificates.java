package dev.ration.server.tls;

import dev.ration.protocol.tls.PemFiles;
import dev.ration.protocol.tls.ReloadingTrustManager;
import dev.ration.server.config.TlsOptions;
import dev.ration.server.tls.DevCertificates.Issued;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;

/** Certificates for tests, made with the same code as `ration cert`. */
public final class TestCertificates {
  public static final List<String> LOOPBACK = List.of("localhost", "127.0.0.1");

  private TestCertificates() {}

  /** A CA valid from an hour ago for a year. */
  public static Issued ca(String name) {
    Instant now = Instant.now();
    return DevCertificates.ca(name, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(365)));
  }

  /** A loopback node certificate (with the node name) valid from an hour ago for {@code days}. */
  public static Issued node(Issued ca, String id, int days) {
    Instant now = Instant.now();
    return DevCertificates.node(ca, id, LOOPBACK, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(days)));
  }

  /** A loopback client certificate (no node name) valid from an hour ago for {@code days}. */
  public static Issued leaf(Issued ca, String name, int days) {
    Instant now = Instant.now();
    return DevCertificates.leaf(ca, name, LOOPBACK, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(days)));
  }

  /** A loopback node certificate that expired an hour ago. */
  public static Issued expired(Issued ca, String name) {
    Instant now = Instant.now();
    return DevCertificates.node(ca, name, LOOPBACK, now.minus(Duration.ofDays(30)), now.minus(Duration.ofHours(1)));
  }

  /** What `scripts/cluster.sh start` creates: ca, node.ID for each id, client.admin. */
  public static Issued devSet(Path dir, List<String> nodeIds) {
    Issued ca = ca("Ration test CA " + DevCertificates.shortId());
    try {
      DevCertificates.write(dir, "ca", ca, true);
      for (String id : nodeIds) {
        DevCertificates.write(dir, "node." + id, node(ca, id, 30), true);
      }
      DevCertificates.write(dir, "client.admin", leaf(ca, "admin", 30), true);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ca;
  }

  /** Writes {@code ca}'s certificate as ca.crt and {@code leaf} as NAME.crt/NAME.key in {@code dir}. */
  public static void write(Path dir, Issued ca, String name, Issued leaf) {
    try {
      DevCertificates.writeFile(dir.resolve("ca.crt"), DevCertificates.pem(ca.certificate()), "rw-r--r--", true);
      DevCertificates.write(dir, name, leaf, true);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Node TLS options over the files {@link #write} wrote in {@code dir}. */
  public static TlsOptions options(Path dir, String name, TlsOptions.ClientAuth auth, Duration reload) {
    return new TlsOptions(TlsOptions.Mode.ON, "test", dir.resolve("ca.crt"), dir.resolve(name + ".crt"),
        dir.resolve(name + ".key"), auth, reload);
  }

  /** An SSL context that trusts the CA certificate in {@code caPem} and presents nothing. */
  public static SSLContext trusting(Path caPem) {
    try {
      SSLContext ctx = SSLContext.getInstance("TLSv1.3");
      ctx.init(null, new TrustManager[] {new ReloadingTrustManager(PemFiles.certificates(caPem))}, null);
      return ctx;
    } catch (GeneralSecurityException | dev.ration.protocol.tls.PemException e) {
      throw new IllegalStateException(e);
    }
  }
}
