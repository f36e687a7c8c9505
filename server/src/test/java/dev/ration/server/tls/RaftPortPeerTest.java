package dev.ration.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.LimitSpec;
import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.tls.ClientTls;
import dev.ration.protocol.tls.ReloadingKeyManager;
import dev.ration.protocol.tls.ReloadingTrustManager;
import dev.ration.server.RationNode;
import dev.ration.server.config.EndpointOptions;
import dev.ration.server.config.ServerConfig;
import dev.ration.server.config.TlsOptions;
import dev.ration.server.consensus.NodeStatus;
import dev.ration.server.consensus.Peer;
import dev.ration.server.tls.DevCertificates.Issued;
import dev.ration.testkit.FreePorts;
import dev.ration.testkit.Waits;
import dev.ration.wire.Outcome;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.GroupListReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.thirdparty.io.netty.handler.ssl.SslProvider;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Only nodes of this cluster get past TLS on the Raft port. On a real three-node cluster with
 * TLS, Ratis's own client, dialling a node's Raft port for GroupList and GroupInfo (admin
 * services that answer anyone who completes the handshake), is refused with a tenant's client
 * certificate, with a certificate of the CA that lacks the node name (what a node certificate
 * looked like before), and with a node certificate of another cluster's CA; with a node
 * certificate of the CA it is answered. A raw TLS + HTTP/2 connection shows the same below gRPC:
 * a refused certificate never gets the server's HTTP/2 SETTINGS. The other direction, a node
 * dialling a peer that presents a non-node certificate, is refused by the same trust manager.
 * Meanwhile the cluster, with proper node certificates, forms and serves writes.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RaftPortPeerTest {
  private static final byte[] H2_PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
  /** An empty SETTINGS frame: length 0, type 4, flags 0, stream 0. */
  private static final byte[] H2_SETTINGS = {0, 0, 0, 4, 0, 0, 0, 0, 0};

  @TempDir static Path dir;
  Path certs;
  Issued ca;
  Issued foreignCa;
  final List<Peer> peers = new ArrayList<>();
  final List<RationNode> nodes = new ArrayList<>();
  RaftGroupId groupId;

  @BeforeAll
  void startCluster() throws Exception {
    certs = Files.createDirectories(dir.resolve("certs"));
    ca = TestCertificates.devSet(certs, List.of("n1", "n2", "n3"));
    foreignCa = TestCertificates.ca("Other cluster's CA");
    for (int i = 1; i <= 3; i++) {
      peers.add(new Peer("n" + i, "127.0.0.1:" + FreePorts.next(), "127.0.0.1:" + FreePorts.next(),
          "127.0.0.1:" + FreePorts.next()));
    }
    EndpointOptions endpoint = new EndpointOptions(1 << 20, 64, 16, Duration.ofSeconds(5), Duration.ofSeconds(30), 1, 256);
    for (Peer p : peers) {
      ServerConfig config = new ServerConfig(RaftPeerTlsTest.consensus(p, peers, dir.resolve("data-" + p.id())),
          p.clientAddress(), p.adminAddress(), endpoint, Duration.ofSeconds(2),
          TestCertificates.options(certs, "node." + p.id(), TlsOptions.ClientAuth.REQUIRED, Duration.ofSeconds(10)));
      nodes.add(RationNode.start(config));
    }
    groupId = RaftGroupId.valueOf(UUID.fromString(RaftPeerTlsTest.consensus(peers.get(0), peers, dir).groupId()));
    Waits.upTo(Duration.ofSeconds(90)).every(Duration.ofMillis(100)).until("a leader",
        () -> nodes.stream().map(n -> n.consensus().status()).filter(s -> "LEADER".equalsIgnoreCase(s.role()))
            .findFirst().orElse(null),
        s -> s != null);
  }

  @AfterAll
  void stopCluster() {
    for (RationNode n : nodes) {
      n.abort();
    }
  }

  @Test
  void theClusterFormsAndServesWritesWithNodeCertificates() throws Exception {
    ClientTls clientTls = ClientTls.trusting(certs.resolve("ca.crt"))
        .withKeyPair(certs.resolve("client.admin.crt"), certs.resolve("client.admin.key"));
    RationClientOptions options = RationClientOptions.builder()
        .addresses(peers.stream().map(Peer::clientAddress).toList())
        .requestDeadline(Duration.ofSeconds(60)).maxRetries(200).tls(clientTls).build();
    try (RationClient client = new RationClient(options)) {
      for (int i = 0; i < 5; i++) {
        assertEquals(Outcome.SUCCESS,
            client.setLimit(LimitSpec.builder("acme", "api-" + i).ratePerSecond(100).burst(100).build()).outcome());
      }
      assertTrue(client.getLimit("acme", "api-4").isPresent());
    }
    // Every member applies them: appends flow over the Raft port in every direction.
    for (RationNode n : nodes) {
      long committed = nodes.stream().mapToLong(m -> m.consensus().status().commitIndex()).max().orElseThrow();
      Waits.upTo(Duration.ofSeconds(60)).every(Duration.ofMillis(100)).until(n.consensus().status().nodeId() + " applied",
          () -> n.consensus().status(), (NodeStatus s) -> s.appliedIndex() >= committed);
    }
  }

  /** (a) A tenant's certificate, as `ration cert create-client` makes it. */
  @Test
  void tenantClientCertificateIsRefused() throws Exception {
    assertRefused(TestCertificates.leaf(ca, "tenant-alpha", 30));
  }

  /** (b) A certificate of the CA, naming a member and its address, but without the node name. */
  @Test
  void certificateOfTheCaWithoutTheNodeUsageIsRefused() throws Exception {
    assertRefused(TestCertificates.leaf(ca, "n2", 30));
  }

  /** (c) A node certificate, but of another cluster's CA. */
  @Test
  void nodeCertificateOfAnotherClustersCaIsRefused() throws Exception {
    assertRefused(TestCertificates.node(foreignCa, "n2", 30));
  }

  /** (d) A node certificate of this cluster's CA is answered by Ratis's services. */
  @Test
  void nodeCertificateIsAnswered() throws Exception {
    Issued node = TestCertificates.node(ca, "n2", 30);
    try (RaftClient client = ratisClient(node)) {
      GroupListReply list = client.getGroupManagementApi(RaftPeerId.valueOf("n1")).list();
      assertTrue(list.getGroupIds().contains(groupId), "groups: " + list.getGroupIds());
      GroupInfoReply info = client.getGroupManagementApi(RaftPeerId.valueOf("n1")).info(groupId);
      assertEquals(3, info.getGroup().getPeers().size(), info.toString());
    }
    assertTrue(rawHttp2(node), "the Raft port did not answer HTTP/2 to a node certificate");
  }

  /**
   * The client side: a node dialling a peer's Raft address checks that what answers is a node
   * too. A server presenting a client certificate of the same CA (naming the address) is refused
   * during the handshake; the same server with a node certificate is accepted.
   */
  @Test
  void aNodeRefusesAPeerServingANonNodeCertificate() throws Exception {
    Issued self = TestCertificates.node(ca, "n1", 30);
    RaftPeerTrustManager trust = new RaftPeerTrustManager(new ReloadingTrustManager(List.of(ca.certificate())));
    SSLContext dialler = context(self, trust);

    SSLException refused = assertThrows(SSLException.class,
        () -> handshakeWith(TestCertificates.leaf(ca, "n2", 30), dialler));
    assertTrue(String.valueOf(messages(refused)).contains("the server's certificate 'CN=n2,O=Ration' is signed by the cluster's CA "
        + "but is not a node certificate"), messages(refused));
    assertEquals(1, trust.refusals());

    handshakeWith(TestCertificates.node(ca, "n2", 30), dialler);
    assertEquals(1, trust.refusals());
  }

  // ------------------------------------------------------------------ helpers

  private void assertRefused(Issued cert) throws Exception {
    long refusalsBefore = nodes.get(0).tls().raftPeerRefusals();
    try (RaftClient client = ratisClient(cert)) {
      // Ratis's admin stub surfaces a failed handshake as gRPC's UNAVAILABLE, unwrapped.
      Exception list = assertThrows(Exception.class,
          () -> client.getGroupManagementApi(RaftPeerId.valueOf("n1")).list(),
          "GroupList answered " + cert.certificate().getSubjectX500Principal());
      assertTrue(messages(list).contains("UNAVAILABLE") || list instanceof IOException, messages(list));
      Exception info = assertThrows(Exception.class,
          () -> client.getGroupManagementApi(RaftPeerId.valueOf("n1")).info(groupId),
          "GroupInfo answered " + cert.certificate().getSubjectX500Principal());
      assertTrue(messages(info).contains("UNAVAILABLE") || info instanceof IOException, messages(info));
    }
    assertFalse(rawHttp2(cert), "the Raft port answered HTTP/2 to " + cert.certificate().getSubjectX500Principal());
    if (cert.certificate().getIssuerX500Principal().equals(ca.certificate().getSubjectX500Principal())) {
      // Refused by the node rule, not by the CA check: counted as such.
      assertTrue(nodes.get(0).tls().raftPeerRefusals() > refusalsBefore, "no refusal counted");
    }
  }

  /** Ratis's own client with {@code cert}, trusting the cluster's CA, no retries. */
  private RaftClient ratisClient(Issued cert) {
    RaftProperties properties = new RaftProperties();
    RaftClientConfigKeys.Rpc.setRequestTimeout(properties, TimeDuration.valueOf(10, TimeUnit.SECONDS));
    Parameters parameters = new Parameters();
    GrpcConfigKeys.TLS.setConf(parameters, GrpcTlsConfig.newBuilder()
        .setKeyManager(new ReloadingKeyManager(cert.key(), List.of(cert.certificate())))
        .setTrustManager(new ReloadingTrustManager(List.of(ca.certificate())))
        .setMutualTls(true)
        .setSslProvider(SslProvider.JDK)
        .setProtocols("TLSv1.3")
        .build());
    List<RaftPeer> raftPeers = peers.stream()
        .map(p -> RaftPeer.newBuilder().setId(p.id()).setAddress(p.raftAddress()).build()).toList();
    return RaftClient.newBuilder()
        .setProperties(properties)
        .setParameters(parameters)
        .setRaftGroup(RaftGroup.valueOf(groupId, raftPeers))
        .setRetryPolicy(RetryPolicies.noRetry())
        .build();
  }

  /**
   * TLS 1.3 with ALPN h2 to n1's Raft port presenting {@code cert}, then the HTTP/2 preface and
   * an empty SETTINGS frame: true if the server answered with a frame (it speaks first after the
   * preface with its SETTINGS), false if the connection failed or closed without a byte. Under
   * TLS 1.3 the client's certificate is judged after the client's handshake is done, so a
   * refusal shows as an alert on the first read.
   */
  private boolean rawHttp2(Issued cert) throws Exception {
    SSLContext ctx = context(cert, new ReloadingTrustManager(List.of(ca.certificate())));
    String raft = peers.get(0).raftAddress();
    int port = Integer.parseInt(raft.substring(raft.lastIndexOf(':') + 1));
    try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10_000);
      s.setSoTimeout(10_000);
      SSLParameters p = s.getSSLParameters();
      p.setApplicationProtocols(new String[] {"h2"});
      p.setEndpointIdentificationAlgorithm("HTTPS");
      s.setSSLParameters(p);
      s.startHandshake();
      OutputStream out = s.getOutputStream();
      out.write(H2_PREFACE);
      out.write(H2_SETTINGS);
      out.flush();
      InputStream in = s.getInputStream();
      byte[] header = in.readNBytes(9);
      return header.length == 9 && header[3] == 4;
    } catch (IOException refused) {
      return false;
    }
  }

  /** A TLS server on loopback presenting {@code serverCert}; {@code dialler} handshakes with it. */
  private void handshakeWith(Issued serverCert, SSLContext dialler) throws Exception {
    SSLContext serverCtx = context(serverCert, new ReloadingTrustManager(List.of(ca.certificate())));
    try (SSLServerSocket server = (SSLServerSocket) serverCtx.getServerSocketFactory()
        .createServerSocket(0, 4, InetAddress.getLoopbackAddress())) {
      server.setNeedClientAuth(true);
      AtomicReference<Throwable> serverSide = new AtomicReference<>();
      Thread t = new Thread(() -> {
        try (SSLSocket s = (SSLSocket) server.accept()) {
          s.setSoTimeout(10_000);
          s.startHandshake();
          s.getInputStream().read();
        } catch (IOException e) {
          serverSide.set(e);
        }
      }, "test-tls-server");
      t.setDaemon(true);
      t.start();
      try (SSLSocket s = (SSLSocket) dialler.getSocketFactory().createSocket()) {
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()), 10_000);
        s.setSoTimeout(10_000);
        SSLParameters p = s.getSSLParameters();
        p.setEndpointIdentificationAlgorithm("HTTPS");
        s.setSSLParameters(p);
        s.startHandshake();
        s.getOutputStream().write(1);
        s.getOutputStream().flush();
      }
      t.join(10_000);
    }
  }

  private static SSLContext context(Issued cert, TrustManager trust) throws Exception {
    SSLContext ctx = SSLContext.getInstance("TLSv1.3");
    ctx.init(new KeyManager[] {new ReloadingKeyManager(cert.key(), List.of(cert.certificate()))},
        new TrustManager[] {trust}, null);
    return ctx;
  }

  private static String messages(Throwable t) {
    StringBuilder b = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      b.append(c).append(" <- ");
    }
    return b.toString();
  }
}
