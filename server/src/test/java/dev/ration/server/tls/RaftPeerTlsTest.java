package dev.ration.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.LimitSpec;
import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.RationException;
import dev.ration.client.tls.ClientTls;
import dev.ration.server.RationNode;
import dev.ration.server.config.EndpointOptions;
import dev.ration.server.config.ServerConfig;
import dev.ration.server.config.TlsOptions;
import dev.ration.server.consensus.ConsensusNode;
import dev.ration.server.consensus.ConsensusOptions;
import dev.ration.server.consensus.NodeStatus;
import dev.ration.server.consensus.Peer;
import dev.ration.server.tls.DevCertificates.Issued;
import dev.ration.statemachine.StateOptions;
import dev.ration.testkit.FreePorts;
import dev.ration.testkit.Waits;
import dev.ration.wire.Outcome;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Raft traffic is mutual TLS: a process holding a certificate of another CA, running at a
 * member's address under the member's id, is neither heard nor spoken to by a real three-node
 * group. The real n1 and n2 keep a leader between them and commit without it, it never leads,
 * and it never receives one entry. The same member started with a certificate of the group's CA catches up,
 * which shows that only the certificate kept the impostor out.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class RaftPeerTlsTest {
  @TempDir Path dir;

  static ConsensusOptions consensus(Peer self, List<Peer> peers, Path data) {
    return new ConsensusOptions(self.id(), UUID.nameUUIDFromBytes("raft-peer-tls".getBytes()).toString(), peers, data,
        Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(3), 10_000, 0, 1 << 20,
        256, 64 << 10, Duration.ofMillis(2), 4, 1_000, Duration.ofMillis(100), 100, StateOptions.defaults());
  }

  ServerConfig config(Peer self, List<Peer> peers, Path certs, Path data) {
    EndpointOptions endpoint = new EndpointOptions(1 << 20, 64, 16, Duration.ofSeconds(5), Duration.ofSeconds(30), 1, 256);
    return new ServerConfig(consensus(self, peers, data), self.clientAddress(), self.adminAddress(), endpoint,
        Duration.ofSeconds(2), TestCertificates.options(certs, "node." + self.id(), TlsOptions.ClientAuth.REQUIRED,
        Duration.ofSeconds(10)));
  }

  static NodeStatus leaderOf(List<RationNode> nodes) {
    return Waits.upTo(Duration.ofSeconds(90)).every(Duration.ofMillis(100)).until("a leader among n1, n2",
        () -> nodes.stream().map(n -> n.consensus().status()).filter(s -> "LEADER".equalsIgnoreCase(s.role()))
            .findFirst().orElse(null),
        s -> s != null);
  }

  @Test
  void peerWithACertificateOfAnotherCaCannotJoinVoteOrReceiveAppends() throws Exception {
    Path certs = Files.createDirectories(dir.resolve("certs"));
    Issued ca = TestCertificates.devSet(certs, List.of("n1", "n2", "n3"));
    Path rogueCerts = Files.createDirectories(dir.resolve("rogue"));
    Issued foreignCa = TestCertificates.ca("Foreign CA");
    TestCertificates.write(rogueCerts, foreignCa, "node.n3", TestCertificates.node(foreignCa, "n3", 30));

    List<Peer> peers = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      peers.add(new Peer("n" + i, "127.0.0.1:" + FreePorts.next(), "127.0.0.1:" + FreePorts.next(), "127.0.0.1:" + FreePorts.next()));
    }
    List<RationNode> nodes = new ArrayList<>();
    ConsensusNode rogue = null;
    RationNode realN3 = null;
    try {
      // The impostor first, so it campaigns from the start: it would win n1's and n2's votes
      // before they elect each other, if it were heard.
      ServerTls rogueTls = ServerTls.load(TestCertificates.options(rogueCerts, "node.n3",
          TlsOptions.ClientAuth.REQUIRED, Duration.ofSeconds(10)));
      rogue = ConsensusNode.start(consensus(peers.get(2), peers, dir.resolve("rogue-data")), System::nanoTime,
          (message, cause) -> { throw new AssertionError("the impostor failed: " + message, cause); },
          rogueTls.raftConfig());
      for (int i = 0; i < 2; i++) {
        nodes.add(RationNode.start(config(peers.get(i), peers, certs, dir.resolve("data-n" + (i + 1)))));
      }
      assertTrue(List.of("n1", "n2").contains(leaderOf(nodes).nodeId()));

      ClientTls clientTls = ClientTls.trusting(certs.resolve("ca.crt"))
          .withKeyPair(certs.resolve("client.admin.crt"), certs.resolve("client.admin.key"));
      RationClientOptions options = RationClientOptions.builder()
          .addresses(List.of(peers.get(0).clientAddress(), peers.get(1).clientAddress()))
          .requestDeadline(Duration.ofSeconds(60)).maxRetries(200).tls(clientTls).build();
      try (RationClient client = new RationClient(options)) {
        // Writes commit with n1 and n2 alone, the impostor at n3's address notwithstanding.
        for (int i = 0; i < 5; i++) {
          Outcome o = client.setLimit(LimitSpec.builder("acme", "api-" + i).ratePerSecond(100).burst(100).build()).outcome();
          assertEquals(Outcome.SUCCESS, o);
        }
        // Many of the impostor's election timeouts later, it has not led, voted or learnt
        // anything. (The group's own leader may move between n1 and n2 on a starved machine;
        // what must never happen is n3 leading or receiving an entry.)
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < until) {
          NodeStatus now = leaderOf(nodes);
          assertTrue(!now.nodeId().equals("n3") && !"n3".equals(now.leaderId()), "the impostor leads: " + now);
          NodeStatus r = rogue.status();
          assertTrue(r.commitIndex() <= 0 && r.appliedIndex() <= 0, "the impostor received entries: " + r);
          assertTrue(r.leaderId() == null || r.leaderId().isEmpty() || r.leaderId().equals("n3"),
              "the impostor learnt of a leader: " + r);
          Thread.sleep(200);
        }
        assertTrue(client.getLimit("acme", "api-4").isPresent());
        long committed = leaderOf(nodes).commitIndex();
        rogue.close();
        rogue = null;

        // The control: n3 with the group's certificate, same address, empty disk, catches up.
        Peer n3 = peers.get(2);
        Path n3Data = dir.resolve("data-n3");
        // gRPC lets go of the impostor's port shortly after close; bind n3 once it has.
        int raftPort = Integer.parseInt(n3.raftAddress().substring(n3.raftAddress().lastIndexOf(':') + 1));
        Waits.upTo(Duration.ofSeconds(60)).every(Duration.ofMillis(200)).until("n3's raft port free",
            () -> {
              try (ServerSocket probe = new ServerSocket()) {
                probe.setReuseAddress(true);
                probe.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), raftPort));
                return true;
              } catch (IOException stillHeld) {
                return false;
              }
            }, free -> free);
        realN3 = RationNode.start(config(n3, peers, certs, n3Data));
        RationNode started = realN3;
        Waits.upTo(Duration.ofSeconds(90)).every(Duration.ofMillis(200)).until("n3 caught up",
            () -> started.consensus().status().appliedIndex(), applied -> applied >= committed);
        assertTrue(List.of("n1", "n2").contains(leaderOf(nodes).nodeId()));
      } catch (RationException e) {
        throw new AssertionError("the group stopped serving: " + e.getMessage(), e);
      }
    } finally {
      if (rogue != null) {
        rogue.close();
      }
      if (realN3 != null) {
        realN3.abort();
      }
      for (RationNode n : nodes) {
        n.abort();
      }
    }
  }
}
