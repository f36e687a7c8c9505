package dev.ration.server.tls;

import dev.ration.protocol.tls.PemException;
import dev.ration.protocol.tls.PemFiles;
import dev.ration.protocol.tls.Pki;
import dev.ration.protocol.tls.ReloadingKeyManager;
import dev.ration.protocol.tls.ReloadingTrustManager;
import dev.ration.server.config.ConfigException;
import dev.ration.server.config.TlsOptions;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManager;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's certificate, key and trusted CA, loaded and checked from the PEM files of its
 * {@code tls} section, and handed to the three ports as one reloading key manager and one
 * reloading trust manager: the client port's Netty context, the admin port's HTTPS context and
 * Ratis's gRPC (mutual TLS between peers) all ask them at every handshake, so when the files
 * change on disk ({@link #startReloading}) every new connection on every port uses the new
 * certificate and connections already open keep theirs.
 *
 * <p>Every check made at start is made again at each reload; a reload whose files fail one
 * (a half-written file, a key for another certificate) keeps the material in use and logs why,
 * then tries again at the next interval. Thread-safe.
 */
public final class ServerTls implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ServerTls.class);

  private final TlsOptions options;
  private final ReloadingKeyManager keyManager;
  private final ReloadingTrustManager trustManager;
  private final RaftPeerTrustManager raftTrustManager;
  private volatile Stamp loadedStamp;
  private volatile ScheduledExecutorService reloader;

  /** What the three files looked like when they were last loaded. */
  private record Stamp(List<Object> parts) {}

  /** The checked contents of the three files. */
  record Material(List<X509Certificate> cas, List<X509Certificate> chain, PrivateKey key) {}

  private ServerTls(TlsOptions options, Material m, Stamp stamp) {
    this.options = options;
    this.keyManager = new ReloadingKeyManager(m.key, m.chain);
    this.trustManager = new ReloadingTrustManager(m.cas);
    this.raftTrustManager = new RaftPeerTrustManager(trustManager);
    this.loadedStamp = stamp;
  }

  /**
   * Loads and checks the files of {@code options} (which must be {@link TlsOptions#on()}):
   * each must exist and be PEM of the right kind, the key must belong to the certificate, the
   * certificate must be valid now and signed by the configured CA. Each failure is a
   * ConfigException problem naming the key and the file.
   */
  public static ServerTls load(TlsOptions options) throws ConfigException {
    if (!options.on()) {
      throw new IllegalArgumentException("tls mode is insecure: nothing to load");
    }
    Stamp stamp = stamp(options);
    Material m = read(options, Instant.now());
    return new ServerTls(options, m, stamp);
  }

  static Material read(TlsOptions o, Instant now) throws ConfigException {
    List<String> problems = new ArrayList<>();
    List<X509Certificate> cas = certificates("tls.ca", o.ca(), problems);
    List<X509Certificate> chain = certificates("tls.cert", o.cert(), problems);
    PrivateKey key = null;
    try {
      key = PemFiles.privateKey(o.key());
    } catch (PemException e) {
      problems.add("tls.key: " + e.getMessage());
    }
    if (!chain.isEmpty()) {
      X509Certificate leaf = chain.get(0);
      try {
        leaf.checkValidity(java.util.Date.from(now));
      } catch (CertificateExpiredException e) {
        problems.add("tls.cert: " + o.cert() + ": the certificate '" + subject(leaf) + "' expired at "
            + leaf.getNotAfter().toInstant() + " (now " + now + ")");
      } catch (CertificateNotYetValidException e) {
        problems.add("tls.cert: " + o.cert() + ": the certificate '" + subject(leaf) + "' is not valid before "
            + leaf.getNotBefore().toInstant() + " (now " + now + ")");
      }
      if (key != null && !Pki.matches(key, leaf)) {
        problems.add("tls.key: " + o.key() + ": is not the private key of the certificate in " + o.cert()
            + " ('" + subject(leaf) + "')");
      }
      if (!NodeCertificates.isNode(leaf)) {
        // Peers refuse a certificate without the node name (RaftPeerTrustManager), so a node
        // starting with one would never be heard: say so now, and how to mend it.
        problems.add("tls.cert: " + o.cert() + ": the certificate '" + subject(leaf) + "' is not a node certificate "
            + "(no subject alternative name " + NodeCertificates.NODE_URI_PREFIX + "<id>), and peers refuse any other on the Raft "
            + "port; " + NodeCertificates.howToReissue(commonName(leaf)));
      }
      if (!cas.isEmpty() && !signedBy(chain, cas)) {
        problems.add("tls.cert: " + o.cert() + ": the certificate '" + subject(leaf) + "', issued by '"
            + leaf.getIssuerX500Principal().getName() + "', is not signed by the CA in tls.ca " + o.ca()
            + " ('" + subject(cas.get(0)) + "')");
      }
    }
    for (X509Certificate ca : cas) {
      try {
        ca.checkValidity(java.util.Date.from(now));
      } catch (CertificateExpiredException | CertificateNotYetValidException e) {
        problems.add("tls.ca: " + o.ca() + ": the CA certificate '" + subject(ca) + "' is not valid now ("
            + ca.getNotBefore().toInstant() + " to " + ca.getNotAfter().toInstant() + ")");
      }
    }
    if (!problems.isEmpty()) {
      if (problems.stream().anyMatch(p -> p.endsWith(": no such file"))) {
        problems.add("(development certificates: `scripts/cluster.sh start` creates them for the local cluster, "
            + "or run `ration cert create-ca`, `ration cert create-node ID`, `ration cert create-client admin`; "
            + "docs/SECURITY.md)");
      }
      throw new ConfigException(o.source(), problems);
    }
    return new Material(cas, chain, key);
  }

  private static List<X509Certificate> certificates(String key, Path file, List<String> problems) {
    try {
      return PemFiles.certificates(file);
    } catch (PemException e) {
      problems.add(key + ": " + e.getMessage());
      return List.of();
    }
  }

  /** True if each certificate of {@code chain} is signed by the next, and the last by one of {@code cas}. */
  static boolean signedBy(List<X509Certificate> chain, List<X509Certificate> cas) {
    for (int i = 0; i + 1 < chain.size(); i++) {
      if (!verifies(chain.get(i), chain.get(i + 1))) {
        return false;
      }
    }
    X509Certificate last = chain.get(chain.size() - 1);
    for (X509Certificate ca : cas) {
      if (last.equals(ca) || verifies(last, ca)) {
        return true;
      }
    }
    return false;
  }

  private static boolean verifies(X509Certificate cert, X509Certificate issuer) {
    if (!cert.getIssuerX500Principal().equals(issuer.getSubjectX500Principal())) {
      return false;
    }
    try {
      cert.verify(issuer.getPublicKey());
      return true;
    } catch (GeneralSecurityException | RuntimeException e) {
      return false;
    }
  }

  private static String commonName(X509Certificate c) {
    return dev.ration.server.security.CertificateNames.nameOf(c).orElse("ID");
  }

  private static String subject(X509Certificate c) {
    return c.getSubjectX500Principal().getName();
  }

  private static Stamp stamp(TlsOptions o) {
    List<Object> parts = new ArrayList<>();
    for (Path p : List.of(o.ca(), o.cert(), o.key())) {
      try {
        FileTime t = Files.getLastModifiedTime(p);
        parts.add(p + "@" + t.toMillis() + "/" + Files.size(p) + "/" + java.util.Arrays.hashCode(Files.readAllBytes(p)));
      } catch (IOException | RuntimeException e) {
        parts.add(p + ":" + e.getClass().getSimpleName());
      }
    }
    return new Stamp(parts);
  }

  /** Checks the files every {@code reload-interval}; loads them again when they changed. */
  public synchronized void startReloading() {
    if (reloader != null) {
      return;
    }
    ScheduledExecutorService s = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "ration-tls-reload");
      t.setDaemon(true);
      return t;
    });
    long every = Math.max(1, options.reloadInterval().toMillis());
    s.scheduleWithFixedDelay(this::reloadIfChanged, every, every, TimeUnit.MILLISECONDS);
    reloader = s;
  }

  /** Loads the files again if they changed since the last load; true if new material is in use. */
  public boolean reloadIfChanged() {
    Stamp now = stamp(options);
    if (Objects.equals(now, loadedStamp)) {
      return false;
    }
    try {
      Material m = read(options, Instant.now());
      keyManager.set(m.key, m.chain);
      trustManager.set(m.cas);
      loadedStamp = now;
      log.info("event=tls_reloaded cert_subject=\"{}\" not_after={} ca=\"{}\"",
          subject(m.chain.get(0)), m.chain.get(0).getNotAfter().toInstant(), subject(m.cas.get(0)));
      return true;
    } catch (ConfigException e) {
      // Not remembered as loaded: the next interval tries again (a copy may still be under way).
      log.warn("event=tls_reload_failed keeping=current problems=\"{}\"", String.join("; ", e.problems()));
      return false;
    } catch (RuntimeException e) {
      log.warn("event=tls_reload_failed keeping=current error=\"{}\"", e.toString());
      return false;
    }
  }

  public TlsOptions options() {
    return options;
  }

  /** The certificate this node presents now. */
  public X509Certificate certificate() {
    return keyManager.certificate();
  }

  /** Seconds since the epoch at which the certificate presented now expires. */
  public long certificateExpiryEpochSeconds() {
    return keyManager.certificate().getNotAfter().toInstant().getEpochSecond();
  }

  public ReloadingKeyManager keyManager() {
    return keyManager;
  }

  public ReloadingTrustManager trustManager() {
    return trustManager;
  }

  /** Peer certificates the Raft port (either direction) refused for not being node certificates. */
  public long raftPeerRefusals() {
    return raftTrustManager.refusals();
  }

  /** The client port's context: TLS 1.3, client certificates as {@code client-auth} says. */
  public SslContext clientPortContext() {
    ClientAuth auth = switch (options.clientAuth()) {
      case NONE -> ClientAuth.NONE;
      case OPTIONAL -> ClientAuth.OPTIONAL;
      case REQUIRED -> ClientAuth.REQUIRE;
    };
    try {
      return SslContextBuilder.forServer(keyManager)
          .trustManager(trustManager)
          .clientAuth(auth)
          .protocols("TLSv1.3")
          .build();
    } catch (SSLException e) {
      throw new IllegalStateException("cannot build the client port's TLS context: " + e.getMessage(), e);
    }
  }

  /** The admin port's context (JDK HttpsServer). */
  public SSLContext adminContext() {
    try {
      SSLContext ctx = SSLContext.getInstance("TLSv1.3");
      ctx.init(new KeyManager[] {keyManager}, new TrustManager[] {trustManager}, null);
      return ctx;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot build the admin port's TLS context: " + e.getMessage(), e);
    }
  }

  /**
   * Ratis's gRPC TLS for server, client and admin traffic between peers: mutual, so a peer
   * must present a node certificate of the configured CA to be heard at all
   * ({@link RaftPeerTrustManager}: Ratis's client and admin services on the same port would
   * otherwise take log entries and membership changes from any client certificate), and this
   * node checks the certificate of the peer it dials the same way (and that it names the
   * peer's address). The
   * JDK provider: BoringSSL through netty-tcnative cost more CPU per renewal here, not less
   * (docs/DECISIONS.md, "TLS stays on the JDK's provider").
   */
  public GrpcTlsConfig raftConfig() {
    return GrpcTlsConfig.newBuilder()
        .setKeyManager(keyManager)
        .setTrustManager(raftTrustManager)
        .setMutualTls(true)
        .setSslProvider(org.apache.ratis.thirdparty.io.netty.handler.ssl.SslProvider.JDK)
        .setProtocols("TLSv1.3")
        .build();
  }

  @Override
  public synchronized void close() {
    if (reloader != null) {
      reloader.shutdownNow();
      reloader = null;
    }
  }
}
