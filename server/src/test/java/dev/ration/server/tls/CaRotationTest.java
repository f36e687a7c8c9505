package dev.ration.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.LeaseResult;
import dev.ration.client.LimitSpec;
import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.RationException;
import dev.ration.client.RenewalReport;
import dev.ration.client.tls.ClientTls;
import dev.ration.server.RationNode;
import dev.ration.server.config.EndpointOptions;
import dev.ration.server.config.ServerConfig;
import dev.ration.server.config.TlsOptions;
import dev.ration.server.consensus.ConsensusOptions;
import dev.ration.server.consensus.NodeStatus;
import dev.ration.server.consensus.Peer;
import dev.ration.server.security.SecurityOptions;
import dev.ration.server.tls.DevCertificates.Issued;
import dev.ration.statemachine.StateOptions;
import dev.ration.testkit.FreePorts;
import dev.ration.testkit.Waits;
import dev.ration.wire.ErrorCode;
import dev.ration.wire.Outcome;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rotating the CA of a running three-node cluster in secure mode (TLS on every port, client
 * certificates required, authorization on) under a renewal load, with the procedure of
 * docs/SECURITY.md ("Rotating the CA"): (1) the new CA is added to every trust bundle, nodes'
 * and clients'; (2) every node and client certificate is issued again by the new CA; (3) the old
 * CA is removed. Every file is replaced by a rename, as `ration cert` writes them; nodes and
 * the long-lived clients pick the files up by themselves (nothing is restarted or rebuilt).
 * After each step leadership moves, so every client opens new connections with what it has
 * loaded. No request fails; at the end a certificate of the old CA is refused.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class CaRotationTest {
  private static final Duration RELOAD = Duration.ofMillis(200);
  @TempDir Path dir;

  private ServerConfig config(Peer self, List<Peer> peers, Path certs) {
    ConsensusOptions consensus = new ConsensusOptions(self.id(),
        UUID.nameUUIDFromBytes("ca-rotation".getBytes()).toString(), peers, dir.resolve("data-" + self.id()),
        Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(3), 10_000, 0, 1 << 20,
        256, 64 << 10, Duration.ofMillis(2), 4, 1_000, Duration.ofMillis(100), 100, StateOptions.defaults());
    EndpointOptions endpoint = new EndpointOptions(1 << 20, 64, 64, Duration.ofSeconds(5), Duration.ofSeconds(30), 1, 256);
    TlsOptions tls = TestCertificates.options(certs, "node." + self.id(), TlsOptions.ClientAuth.REQUIRED, RELOAD);
    SecurityOptions security = new SecurityOptions(SecurityOptions.Mode.SECURE, List.of("admin"), true, 10);
    return new ServerConfig(consensus, self.clientAddress(), self.adminAddress(), endpoint, Duration.ofSeconds(2),
        tls, security);
  }

  private static void writeCas(Path file, Issued... cas) throws IOException {
    StringBuilder pem = new StringBuilder();
    for (Issued ca : cas) {
      pem.append(DevCertificates.pem(ca.certificate()));
    }
    DevCertificates.writeFile(file, pem.toString(), "rw-r--r--", true);
  }

  private static boolean issuedBy(X509Certificate c, Issued ca) {
    return c.getIssuerX500Principal().equals(ca.certificate().getSubjectX500Principal());
  }

  private static List<X509Certificate> only(Issued... cas) {
    List<X509Certificate> out = new ArrayList<>();
    for (Issued ca : cas) {
      out.add(ca.certificate());
    }
    return out;
  }

  private static NodeStatus leaderOf(List<RationNode> nodes) {
    return Waits.upTo(Duration.ofSeconds(90)).every(Duration.ofMillis(100)).until("a leader",
        () -> nodes.stream().map(n -> n.consensus().status()).filter(s -> "LEADER".equalsIgnoreCase(s.role()))
            .findFirst().orElse(null),
        s -> s != null);
  }

  /** Moves leadership to the next node: every client reconnects to the new leader. */
  private static void moveLeadership(List<RationNode> nodes) {
    NodeStatus before = leaderOf(nodes);
    RationNode leader = nodes.stream().filter(n -> n.consensus().status().nodeId().equals(before.nodeId()))
        .findFirst().orElseThrow();
    String target = nodes.stream().map(n -> n.consensus().status().nodeId())
        .filter(id -> !id.equals(before.nodeId())).findFirst().orElseThrow();
    // An election of its own may move leadership elsewhere first: the clients reconnect just
    // the same, and the old leader could no longer hand it over.
    Waits.upTo(Duration.ofSeconds(60)).every(Duration.ofMillis(500)).until(
        "leadership moved from " + before.nodeId() + " (to " + target + ")",
        () -> !leaderOf(nodes).nodeId().equals(before.nodeId())
            || leader.consensus().transferLeadershipTo(target, Duration.ofSeconds(10)).isEmpty(),
        moved -> moved);
  }

  private void awaitProgress(String what, AtomicLong renewals, AtomicLong connections) {
    long r = renewals.get();
    long c = connections.get();
    Waits.upTo(Duration.ofSeconds(60)).every(Duration.ofMillis(50)).until(what,
        () -> renewals.get() > r + 30 && connections.get() > c + 2, ok -> ok);
  }

  private static void awaitAll(String what, List<RationNode> nodes, List<RationClient> clients,
      Predicate<RationNode> node, Predicate<RationClient> client) {
    Waits.upTo(Duration.ofSeconds(30)).every(Duration.ofMillis(50)).until(what,
        () -> nodes.stream().allMatch(node) && clients.stream().allMatch(client), ok -> ok);
  }

  @Test
  void rotatingTheCaUnderRenewalLoadFailsNoRequest() throws Exception {
    Path nodeCerts = Files.createDirectories(dir.resolve("node-certs"));
    Path clientCerts = Files.createDirectories(dir.resolve("client-certs"));
    Issued oldCa = TestCertificates.devSet(nodeCerts, List.of("n1", "n2", "n3"));
    TestCertificates.write(clientCerts, oldCa, "client.admin", TestCertificates.leaf(oldCa, "admin", 30));
    List<Peer> peers = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      peers.add(new Peer("n" + i, "127.0.0.1:" + FreePorts.next(), "127.0.0.1:" + FreePorts.next(), "127.0.0.1:" + FreePorts.next()));
    }
    List<String> addresses = peers.stream().map(Peer::clientAddress).toList();
    ClientTls tls = ClientTls.trusting(clientCerts.resolve("ca.crt"))
        .withKeyPair(clientCerts.resolve("client.admin.crt"), clientCerts.resolve("client.admin.key"))
        .withReloadInterval(RELOAD);
    RationClientOptions options = RationClientOptions.builder().addresses(addresses)
        .requestDeadline(Duration.ofSeconds(30)).connectTimeout(Duration.ofSeconds(10)).maxRetries(50)
        .tls(tls).build();

    List<RationNode> nodes = new ArrayList<>();
    List<RationClient> clients = new ArrayList<>();
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> threads = new ArrayList<>();
    try {
      for (Peer p : peers) {
        nodes.add(RationNode.start(config(p, peers, nodeCerts)));
      }
      leaderOf(nodes);
      try (RationClient setup = new RationClient(options)) {
        assertEquals(Outcome.SUCCESS, setup.setLimit(LimitSpec.builder("acme", "api").ratePerSecond(1_000_000)
            .burst(1_000_000).leaseDuration(Duration.ofMinutes(10)).build()).outcome());
      }

      AtomicLong renewals = new AtomicLong();
      AtomicLong connections = new AtomicLong();
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
      for (int w = 0; w < 3; w++) {
        RationClient c = new RationClient(options);
        clients.add(c);
        String holder = "rot-" + w;
        threads.add(new Thread(() -> {
          try {
            LeaseResult lease = c.acquireLease("acme", "api", holder, 10, 10);
            long id = lease.lease().orElseThrow().leaseId();
            long version = lease.lease().orElseThrow().version();
            while (!stop.get() && System.nanoTime() < deadline) {
              LeaseResult r = c.renewLease(RenewalReport.builder(id, version).demand(10, 10).build());
              if (r.outcome() != Outcome.SUCCESS) {
                throw new AssertionError("renewal " + r.outcome());
              }
              version = r.lease().orElseThrow().version();
              renewals.incrementAndGet();
            }
          } catch (Throwable t) {
            failures.add(t);
          }
        }, "renewer-" + w));
      }
      threads.add(new Thread(() -> {
        // Clients made during the rotation read whatever the files hold at that moment.
        while (!stop.get() && System.nanoTime() < deadline) {
          try (RationClient c = new RationClient(options)) {
            c.getLimit("acme", "api");
            connections.incrementAndGet();
          } catch (Throwable t) {
            failures.add(t);
          }
        }
      }, "connector"));
      threads.forEach(Thread::start);
      awaitProgress("load running", renewals, connections);

      // 1. Trust both CAs everywhere.
      Issued newCa = TestCertificates.ca("Ration rotated CA " + DevCertificates.shortId());
      writeCas(nodeCerts.resolve("ca.crt"), oldCa, newCa);
      writeCas(clientCerts.resolve("ca.crt"), oldCa, newCa);
      awaitAll("both CAs trusted by every node and client", nodes, clients,
          n -> n.tls().trustManager().cas().equals(only(oldCa, newCa)),
          c -> c.trustedCertificates().equals(only(oldCa, newCa)));
      moveLeadership(nodes);
      awaitProgress("load after step 1", renewals, connections);

      // 2. Issue every node and client certificate again, from the new CA.
      for (Peer p : peers) {
        DevCertificates.write(nodeCerts, "node." + p.id(), TestCertificates.node(newCa, p.id(), 30), true);
      }
      DevCertificates.write(clientCerts, "client.admin", TestCertificates.leaf(newCa, "admin", 30), true);
      awaitAll("every node and client presents a certificate of the new CA", nodes, clients,
          n -> issuedBy(n.tls().certificate(), newCa),
          c -> c.presentedCertificate().map(x -> issuedBy(x, newCa)).orElse(false));
      moveLeadership(nodes);
      awaitProgress("load after step 2", renewals, connections);

      // 3. Remove the old CA.
      writeCas(nodeCerts.resolve("ca.crt"), newCa);
      writeCas(clientCerts.resolve("ca.crt"), newCa);
      awaitAll("only the new CA trusted", nodes, clients,
          n -> n.tls().trustManager().cas().equals(only(newCa)),
          c -> c.trustedCertificates().equals(only(newCa)));
      moveLeadership(nodes);
      awaitProgress("load after step 3", renewals, connections);

      // The old CA is gone: a client presenting a certificate it issued is refused.
      Path stale = Files.createDirectories(dir.resolve("stale"));
      TestCertificates.write(stale, newCa, "client.admin", TestCertificates.leaf(oldCa, "admin", 30));
      RationClientOptions staleOptions = RationClientOptions.builder().addresses(addresses)
          .requestDeadline(Duration.ofSeconds(5)).maxRetries(1)
          .tls(ClientTls.trusting(stale.resolve("ca.crt"))
              .withKeyPair(stale.resolve("client.admin.crt"), stale.resolve("client.admin.key")))
          .build();
      try (RationClient c = new RationClient(staleOptions)) {
        RationException e = assertThrows(RationException.class, () -> c.getLimit("acme", "api"));
        assertEquals(ErrorCode.UNAUTHENTICATED, e.code(), e.getMessage());
      }
    } finally {
      stop.set(true);
      for (Thread t : threads) {
        t.join(60_000);
      }
      clients.forEach(RationClient::close);
      for (RationNode n : nodes) {
        n.abort();
      }
    }
    assertTrue(failures.isEmpty(), "requests failed during the CA rotation: " + failures);
  }
}
