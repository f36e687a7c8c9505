package dev.ration.server.tls;

import dev.ration.protocol.tls.ReloadingTrustManager;
import java.net.Socket;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The trust of the Raft port, in both directions: a peer's certificate must first pass the
 * node's CA check ({@link ReloadingTrustManager}, so a rotated CA applies here as on every other
 * port), and then be a node certificate ({@link NodeCertificates#isNode}). Ratis serves its
 * server, client and admin services on that one port, and the last two take raw log entries
 * and membership changes with no authorization of their own, so a client certificate of the CA
 * must not complete the handshake there at all; checking it in TLS covers every service at
 * once. A node dialling a peer checks the peer's certificate the same way, so a client
 * certificate cannot pose as a member to it either.
 *
 * <p>Each refusal is counted ({@link #refusals}) and logged at WARN with its reason, at most once
 * per {@link #LOG_EVERY_NANOS} for the same certificate: a refused peer retries every few
 * hundred milliseconds. Thread-safe.
 */
public final class RaftPeerTrustManager extends X509ExtendedTrustManager {
  private static final Logger log = LoggerFactory.getLogger(RaftPeerTrustManager.class);
  static final long LOG_EVERY_NANOS = TimeUnit.MINUTES.toNanos(10);
  /** Bounds the memory of logged certificates; a flood of distinct ones just logs again. */
  private static final int MAX_REMEMBERED = 4096;

  private final ReloadingTrustManager ca;
  private final LongSupplier nanoClock;
  private final AtomicLong refusals = new AtomicLong();
  private final ConcurrentHashMap<String, Long> lastLogged = new ConcurrentHashMap<>();

  public RaftPeerTrustManager(ReloadingTrustManager ca) {
    this(ca, System::nanoTime);
  }

  RaftPeerTrustManager(ReloadingTrustManager ca, LongSupplier nanoClock) {
    this.ca = ca;
    this.nanoClock = nanoClock;
  }

  /** Peer certificates refused for not being node certificates since start. */
  public long refusals() {
    return refusals.get();
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    ca.checkClientTrusted(chain, authType);
    requireNode("client", chain, null);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
    ca.checkClientTrusted(chain, authType, socket);
    requireNode("client", chain, remote(socket));
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
    ca.checkClientTrusted(chain, authType, engine);
    requireNode("client", chain, remote(engine));
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    ca.checkServerTrusted(chain, authType);
    requireNode("server", chain, null);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
    ca.checkServerTrusted(chain, authType, socket);
    requireNode("server", chain, remote(socket));
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
    ca.checkServerTrusted(chain, authType, engine);
    requireNode("server", chain, remote(engine));
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return ca.getAcceptedIssuers();
  }

  private void requireNode(String side, X509Certificate[] chain, String remote) throws CertificateException {
    // The CA check above refused an empty chain already.
    X509Certificate leaf = chain[0];
    if (NodeCertificates.isNode(leaf)) {
      return;
    }
    String reason = "the " + side + "'s certificate '" + leaf.getSubjectX500Principal().getName()
        + "' is signed by the cluster's CA but is not a node certificate (no subject alternative"
        + " name " + NodeCertificates.NODE_URI_PREFIX + "<id>): only nodes of this cluster may "
        + ("client".equals(side) ? "connect to the Raft port" : "serve a Raft peer's address");
    refusals.incrementAndGet();
    logOnce(side, leaf, remote, reason);
    throw new CertificateException(reason);
  }

  private void logOnce(String side, X509Certificate leaf, String remote, String reason) {
    String key = side + "/" + fingerprint(leaf);
    long now = nanoClock.getAsLong();
    Long before = lastLogged.get(key);
    if (before != null && now - before < LOG_EVERY_NANOS) {
      return;
    }
    if (lastLogged.size() >= MAX_REMEMBERED) {
      lastLogged.clear();
    }
    if (before == null ? lastLogged.putIfAbsent(key, now) != null : !lastLogged.replace(key, before, now)) {
      return; // another handshake of the same certificate logged it just now
    }
    log.warn("event=raft_peer_refused side={} remote={} subject=\"{}\" issuer=\"{}\" sha256={} reason=\"{}\""
            + " (logged once per certificate every {} minutes; ration_raft_peer_refusals_total counts them all)",
        side, remote == null ? "unknown" : remote, leaf.getSubjectX500Principal().getName(),
        leaf.getIssuerX500Principal().getName(), fingerprint(leaf), reason,
        TimeUnit.NANOSECONDS.toMinutes(LOG_EVERY_NANOS));
  }

  private static String remote(SSLEngine engine) {
    return engine == null || engine.getPeerHost() == null ? null : engine.getPeerHost() + ":" + engine.getPeerPort();
  }

  private static String remote(Socket socket) {
    return socket == null || socket.getRemoteSocketAddress() == null ? null : socket.getRemoteSocketAddress().toString();
  }

  private static String fingerprint(X509Certificate c) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(c.getEncoded()));
    } catch (NoSuchAlgorithmException | CertificateEncodingException e) {
      return c.getSerialNumber().toString(16);
    }
  }
}
