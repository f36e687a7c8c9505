package dev.ration.server.endpoint;

import dev.ration.testkit.FreePorts;
import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.lease.Limit;
import dev.ration.protocol.QuotaRequest;
import dev.ration.protocol.QuotaResponse;
import dev.ration.protocol.TtlRequest;
import dev.ration.protocol.TtlResponse;
import dev.ration.wire.CapacityPolicy;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;

import dev.ration.wire.Mode;
import dev.ration.wire.Policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.wire.ErrorCode;
import dev.ration.protocol.Kind;
import dev.ration.wire.Outcome;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.server.RationNode;
import dev.ration.server.config.EndpointOptions;
import dev.ration.server.config.ServerConfig;
import dev.ration.server.consensus.ConsensusOptions;
import dev.ration.server.consensus.Peer;
import dev.ration.statemachine.StateOptions;
import dev.ration.testkit.Waits;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole node on real parts: RationNode starts a single-node Ratis group over RocksDB, the
 * client endpoint and admin HTTP; a client over TCP sets a limit, acquires a lease (and gets the
 * same lease back on a retry of the same request id), reads it back; then a graceful shutdown
 * closes everything and is observable from both endpoints.
 */
class EndpointNodeTest {
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private static ServerConfig config(Path dir) {
    String client = "127.0.0.1:" + FreePorts.next();
    String admin = "127.0.0.1:" + FreePorts.next();
    Peer self = new Peer("n1", "127.0.0.1:" + FreePorts.next(), client, admin);
    ConsensusOptions consensus =
        new ConsensusOptions(
            "n1", UUID.nameUUIDFromBytes("endpoint-node-test".getBytes()).toString(), List.of(self), dir,
            Duration.ofMillis(300), Duration.ofMillis(600), Duration.ofSeconds(3),
            10_000, 0, 1 << 20,
            256, 64 << 10, Duration.ofMillis(2), 4, 1_000,
            Duration.ofMillis(100), 100, StateOptions.defaults());
    EndpointOptions endpoint =
        new EndpointOptions(1 << 20, 64, 16, Duration.ofSeconds(5), Duration.ofSeconds(30), 1, 256);
    return new ServerConfig(consensus, client, admin, endpoint, Duration.ofSeconds(2));
  }

  /** An admin HTTP answer: its status and body, or status -1 while nothing answers. */
  record Probe(int status, String body) {}

  private Probe probe(ServerConfig c, String path) {
    try {
      HttpResponse<String> r = http.send(
          HttpRequest.newBuilder(URI.create("http://" + c.adminAddress() + path))
              .timeout(Duration.ofSeconds(5)).build(),
          HttpResponse.BodyHandlers.ofString());
      return new Probe(r.statusCode(), r.body());
    } catch (IOException e) {
      return new Probe(-1, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Probe(-1, e.toString());
    }
  }

  private String httpBody(ServerConfig c, String path) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create("http://" + c.adminAddress() + path))
                .timeout(Duration.ofSeconds(5)).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  @Test
  void servesClientsOnRealConsensusAndShutsDownGracefully(@TempDir Path dir) throws Exception {
    ServerConfig c = config(dir);
    RationNode node = RationNode.start(c);
    try {
      // Bounded wait for the single node to elect itself and commit its NewEpoch.
      Waits.upTo(Duration.ofSeconds(30)).every(Duration.ofMillis(50))
          .until("the node to answer 200 on /ready", () -> probe(c, "/ready"), p -> p.status() == 200);
      assertEquals(200, probe(c, "/health").status());

      try (EndpointSocketTest.Conn conn = new EndpointSocketTest.Conn(Addresses.parse(c.clientAddress()))) {
        conn.send(1, new Request.Hello(1, 0xABC, 0xDEF, new byte[0]));
        Response.HelloReply hello = assertInstanceOf(Response.HelloReply.class, conn.read(Kind.HELLO));
        assertEquals("n1", hello.serverId());

        // The first write may meet a leader still starting its epoch: retry briefly, each time
        // under a new request id below 200 (500 and up are the requests after it).
        AtomicLong nextId = new AtomicLong(10);
        Response answer = Waits.upTo(Duration.ofSeconds(30)).every(Duration.ofMillis(50)).until(
            "a SetLimit reply", () -> {
              long id = nextId.getAndIncrement();
              assertTrue(id < 200, "no SetLimit reply within request ids 10..199");
              conn.send(id, new Request.SetLimit(new Limit("acme", "api", 100, 50, Mode.HARD, 10_000, 1_000, 0,
                  Policy.FREE_CAPACITY, 0)));
              Response r = conn.read(Kind.SET_LIMIT);
              if (!(r instanceof Response.SetLimitReply)) {
                Response.Error e = assertInstanceOf(Response.Error.class, r);
                assertTrue(e.code() == ErrorCode.UNAVAILABLE || e.code() == ErrorCode.NOT_LEADER, e.toString());
              }
              return r;
            }, r -> r instanceof Response.SetLimitReply);
        Response.SetLimitReply set = (Response.SetLimitReply) answer;
        assertEquals(Outcome.SUCCESS, set.outcome(), set.message());

        conn.send(500, new Request.AcquireLease("acme", "api", "eu-1", 40, 20));
        Response.LeaseReply lease = assertInstanceOf(Response.LeaseReply.class, conn.read(Kind.ACQUIRE_LEASE));
        assertEquals(Outcome.SUCCESS, lease.outcome(), lease.message());
        assertTrue(lease.lease().rateShare() > 0);

        // Same request id again: the ledger answers the first result, not a second lease.
        conn.send(500, new Request.AcquireLease("acme", "api", "eu-1", 40, 20));
        Response.LeaseReply again = assertInstanceOf(Response.LeaseReply.class, conn.read(Kind.ACQUIRE_LEASE));
        assertEquals(lease.lease().leaseId(), again.lease().leaseId());

        conn.send(501, new Request.GetLimit("acme", "api", false));
        Response.GetLimitReply got = assertInstanceOf(Response.GetLimitReply.class, conn.read(Kind.GET_LIMIT));
        assertTrue(got.found());
        assertEquals(lease.lease().rateShare(), got.limit().countedRate());

        // TTL and quota replies reach the per-operation metrics with their real outcome.
        conn.send(502, new Request.Ttl(new TtlRequest.SetNamespace("locks", 10, 4096, CapacityPolicy.REJECT)));
        TtlResponse.NamespaceReply ns = assertInstanceOf(TtlResponse.NamespaceReply.class,
            assertInstanceOf(Response.Ttl.class, conn.read(Kind.TTL_NAMESPACE_SET)).response());
        assertEquals(Outcome.SUCCESS, ns.outcome(), ns.message());
        conn.send(503, new Request.Ttl(new TtlRequest.CompareAndSet("locks", "a", 99, new byte[1], 60_000)));
        TtlResponse.WriteReply cas = assertInstanceOf(TtlResponse.WriteReply.class,
            assertInstanceOf(Response.Ttl.class, conn.read(Kind.TTL_CAS)).response());
        assertEquals(Outcome.VERSION_MISMATCH, cas.outcome(), cas.message());
        conn.send(504, new Request.Quota(new QuotaRequest.SetQuota(new QuotaSpec("acme", "jobs", QuotaKind.CONCURRENT,
            Window.NONE, 10, "jobs", 0, Overage.REJECT, 0, 0, 0, "ops", 0, "test"))));
        QuotaResponse.QuotaSetReply quota = assertInstanceOf(QuotaResponse.QuotaSetReply.class,
            assertInstanceOf(Response.Quota.class, conn.read(Kind.QUOTA_SET)).response());
        assertEquals(Outcome.SUCCESS, quota.outcome(), quota.message());
        conn.send(505, new Request.Quota(new QuotaRequest.CancelReservation(12_345)));
        QuotaResponse.SettleReply cancel = assertInstanceOf(QuotaResponse.SettleReply.class,
            assertInstanceOf(Response.Quota.class, conn.read(Kind.RESERVATION_CANCEL)).response());
        assertEquals(Outcome.RESERVATION_UNKNOWN, cancel.outcome(), cancel.message());

        String metrics = httpBody(c, "/metrics");
        for (String line : List.of(
            "ration_requests_total{code=\"OK\",kind=\"TTL_NAMESPACE_SET\",outcome=\"SUCCESS\"} 1.0",
            "ration_requests_total{code=\"OK\",kind=\"TTL_CAS\",outcome=\"VERSION_MISMATCH\"} 1.0",
            "ration_requests_total{code=\"OK\",kind=\"QUOTA_SET\",outcome=\"SUCCESS\"} 1.0",
            "ration_requests_total{code=\"OK\",kind=\"RESERVATION_CANCEL\",outcome=\"RESERVATION_UNKNOWN\"} 1.0",
            "ration_requests_total{code=\"OK\",kind=\"GET_LIMIT\",outcome=\"NONE\"} 1.0")) {
          assertTrue(metrics.contains(line), line + " in\n" + metrics);
        }
        assertTrue(metrics.contains("ration_raft_role{role=\"leader\"} 1.0"), metrics);
        assertTrue(metrics.contains("ration_requests_total{code=\"OK\",kind=\"ACQUIRE_LEASE\",outcome=\"SUCCESS\"} 2.0"), metrics);
        assertTrue(httpBody(c, "/status").contains("\"role\":\"LEADER\""));

        node.shutdown();
        assertTrue(node.awaitTermination(Duration.ofSeconds(30)));
        assertTrue(conn.closedByServer(), "client connections are closed by shutdown");
      }
      assertEquals(-1, probe(c, "/health").status(), "admin HTTP is stopped");
    } finally {
      node.shutdown();
    }
  }
}
