package dev.ration.protocol.tls;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.net.ssl.SSLException;

/**
 * A client's TLS material read from its PEM files, and read again when they change: the CA
 * certificates to trust and, optionally, the certificate and key to present. The Netty context
 * is built once over a {@link ReloadingTrustManager} and a {@link ReloadingKeyManager}, so
 * {@link #reloadIfChanged} changes what every later handshake uses while connections already
 * open keep their session — the same rule as the server's files. Files that do not pass the
 * checks made at construction (a key that does not match, a copy half done) are not used; the
 * material in use stays and the next check tries again. Thread-safe.
 */
public final class ClientTlsFiles {
  private final Path caFile;
  private final Path certFile;
  private final Path keyFile;
  private final ReloadingTrustManager trust;
  private final ReloadingKeyManager keys;
  private final SslContext context;
  private List<String> loadedStamp;

  /**
   * Reads the files and builds the context (TLS 1.3 only). Files that fail their checks are
   * read again every 50 ms for {@link #SETTLE}, in case they are being replaced.
   *
   * @throws PemException naming the file and the problem
   */
  public ClientTlsFiles(Path caFile, Path certFile, Path keyFile) throws PemException {
    this.caFile = caFile;
    this.certFile = certFile;
    this.keyFile = keyFile;
    List<String> stamp = stamp();
    Material m;
    long settleBy = System.nanoTime() + SETTLE.toNanos();
    while (true) {
      try {
        m = read();
        break;
      } catch (PemException e) {
        // Files replaced one by one (a certificate, then its key) do not match in between: a
        // client built at that moment reads them again for a short while before giving up.
        if (System.nanoTime() - settleBy >= 0 || !pause()) {
          throw e;
        }
        stamp = stamp();
      }
    }
    this.trust = new ReloadingTrustManager(m.cas);
    this.keys = m.key == null ? null : new ReloadingKeyManager(m.key, m.chain);
    SslContextBuilder b = SslContextBuilder.forClient()
        .trustManager(trust)
        .protocols("TLSv1.3")
        .endpointIdentificationAlgorithm("HTTPS");
    if (keys != null) {
      b.keyManager(keys);
    }
    try {
      this.context = b.build();
    } catch (SSLException e) {
      throw new PemException(caFile, "cannot build the client context: " + e.getMessage(), e);
    }
    this.loadedStamp = stamp;
  }

  /** A context built ahead of need by {@link #prepare}, for the next {@link #load} of its files. */
  private static final java.util.concurrent.atomic.AtomicReference<Prepared> PREPARED =
      new java.util.concurrent.atomic.AtomicReference<>();

  private record Prepared(List<Path> files, java.util.concurrent.CompletableFuture<ClientTlsFiles> loading) {}

  /**
   * Builds, on the calling thread, the context for these files for the next {@link #load} of
   * the same paths: a one-shot program (the CLI) reads its certificates and builds its TLS
   * context on a second thread while its main thread still parses its arguments. Failures are
   * kept for {@code load}, which then reads the files itself and reports the problem.
   *
   * @return the context prepared, or null if the files did not pass
   */
  public static ClientTlsFiles prepare(Path caFile, Path certFile, Path keyFile) {
    Prepared p = new Prepared(Arrays.asList(caFile, certFile, keyFile),
        new java.util.concurrent.CompletableFuture<>());
    PREPARED.set(p);
    try {
      ClientTlsFiles files = new ClientTlsFiles(caFile, certFile, keyFile);
      p.loading.complete(files);
      return files;
    } catch (PemException | RuntimeException e) {
      p.loading.completeExceptionally(e);
      return null;
    }
  }

  /**
   * The files' context: the one {@link #prepare} built for the same paths (waiting for it if it
   * is still being built, and checked against the files as they are now), else a new one. A
   * prepared context is handed out once.
   *
   * @throws PemException naming the file and the problem
   */
  public static ClientTlsFiles load(Path caFile, Path certFile, Path keyFile) throws PemException {
    Prepared p = PREPARED.get();
    if (p != null && p.files.equals(Arrays.asList(caFile, certFile, keyFile)) && PREPARED.compareAndSet(p, null)) {
      try {
        ClientTlsFiles files = p.loading.join();
        // Changed since it was prepared: read again, exactly as a new context would.
        files.reloadIfChanged();
        return files;
      } catch (PemException | RuntimeException e) {
        // A new context below reads the files again and reports what is wrong with them.
      }
    }
    return new ClientTlsFiles(caFile, certFile, keyFile);
  }

  /** How long a constructor reads files that fail their checks again before it gives up. */
  public static final java.time.Duration SETTLE = java.time.Duration.ofMillis(500);

  /** Waits before the next read; false (interrupt status kept) when interrupted meanwhile. */
  private static boolean pause() {
    try {
      Thread.sleep(50);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private record Material(List<X509Certificate> cas, List<X509Certificate> chain, PrivateKey key) {}

  private Material read() throws PemException {
    List<X509Certificate> cas = PemFiles.certificates(caFile);
    if (certFile == null) {
      return new Material(cas, null, null);
    }
    List<X509Certificate> chain = PemFiles.certificates(certFile);
    PrivateKey key = PemFiles.privateKey(keyFile);
    if (!Pki.matches(key, chain.get(0))) {
      throw new PemException(keyFile, "is not the private key of the certificate in " + certFile);
    }
    return new Material(cas, chain, key);
  }

  /** What the files look like now: path, modification time, size and content hash of each. */
  private List<String> stamp() {
    List<String> parts = new ArrayList<>();
    for (Path p : Arrays.asList(caFile, certFile, keyFile)) {
      if (p == null) {
        continue;
      }
      try {
        parts.add(p + "@" + Files.getLastModifiedTime(p).toMillis() + "/" + Files.size(p) + "/"
            + Arrays.hashCode(Files.readAllBytes(p)));
      } catch (IOException | RuntimeException e) {
        parts.add(p + ":" + e.getClass().getSimpleName());
      }
    }
    return parts;
  }

  /** The context every connection of the client is wrapped in. */
  public SslContext sslContext() {
    return context;
  }

  /**
   * Reads the files again if they changed since they were last loaded, and uses them for
   * every later handshake if they pass the checks.
   *
   * @return true when new material is in use
   * @throws PemException when the files changed but do not pass (the material in use stays;
   *     the next call tries again)
   */
  public synchronized boolean reloadIfChanged() throws PemException {
    List<String> now = stamp();
    if (Objects.equals(now, loadedStamp)) {
      return false;
    }
    Material m = read();
    trust.set(m.cas);
    if (keys != null) {
      keys.set(m.key, m.chain);
    }
    loadedStamp = now;
    return true;
  }

  /** The CA certificates trusted now. */
  public List<X509Certificate> trusted() {
    return trust.cas();
  }

  /** The certificate presented now, if any. */
  public Optional<X509Certificate> presented() {
    return keys == null ? Optional.empty() : Optional.of(keys.certificate());
  }
}
