package dev.ration.server.endpoint;

import dev.ration.testkit.FreePorts;
import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.lease.Limit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.LimitSpec;
import dev.ration.wire.ErrorCode;
import dev.ration.protocol.Kind;
import dev.ration.testkit.Waits;
import java.util.concurrent.atomic.AtomicLong;
import dev.ration.wire.Mode;
import dev.ration.wire.Overage;
import dev.ration.wire.Policy;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import dev.ration.protocol.QuotaRequest;
import dev.ration.protocol.QuotaResponse;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.protocol.TtlRequest;
import dev.ration.protocol.TtlResponse;
import dev.ration.server.RationNode;
import dev.ration.server.config.EndpointOptions;
import dev.ration.server.config.ServerConfig;
import dev.ration.server.consensus.ConsensusOptions;
import dev.ration.server.consensus.Peer;
import dev.ration.statemachine.StateOptions;
import dev.ration.wire.Outcome;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Goal: the configured name bound ({@code ledger.max-name-bytes}) is the only one, from the
 * endpoint through every ledger. A real single-node cluster (Ratis over RocksDB, the client
 * endpoint over TCP) configured for 256 bytes accepts 256-byte names as limit tenant, resource
 * and holder, TTL namespace and quota resource; one configured for 128 refuses the same requests
 * with INVALID_ARGUMENT naming the bound, at the endpoint (limits) or in the ledger (TTL, quota).
 */
public class NameBoundNodeTest {
  private static final String LONG = "n".repeat(256);

  /** A single-node configuration on free loopback ports (also for node tests of other packages). */
  public static ServerConfig config(Path dir, int maxNameBytes) {
    String client = "127.0.0.1:" + FreePorts.next();
    String admin = "127.0.0.1:" + FreePorts.next();
    Peer self = new Peer("n1", "127.0.0.1:" + FreePorts.next(), client, admin);
    ConsensusOptions consensus =
        new ConsensusOptions(
            "n1", UUID.nameUUIDFromBytes("name-bound-test".getBytes()).toString(), List.of(self), dir,
            Duration.ofMillis(300), Duration.ofMillis(600), Duration.ofSeconds(3),
            10_000, 0, 1 << 20,
            256, 64 << 10, Duration.ofMillis(2), 4, 1_000,
            Duration.ofMillis(100), 100, StateOptions.defaults().withMaxNameBytes(maxNameBytes));
    EndpointOptions endpoint =
        new EndpointOptions(1 << 20, 64, 16, Duration.ofSeconds(5), Duration.ofSeconds(30), 1, 256);
    return new ServerConfig(consensus, client, admin, endpoint, Duration.ofSeconds(2));
  }

  /** Starts a node and returns a connection after its first write committed. */
  private static EndpointSocketTest.Conn connectWhenWritable(ServerConfig c) throws Exception {
    EndpointSocketTest.Conn conn = new EndpointSocketTest.Conn(Addresses.parse(c.clientAddress()));
    conn.send(1, new Request.Hello(1, 0xABC, 0xDEF, new byte[0]));
    assertInstanceOf(Response.HelloReply.class, conn.read(Kind.HELLO));
    // Bounded wait: the single node elects itself and starts its epoch within a few seconds;
    // until then a write is refused (UNAVAILABLE or NOT_LEADER), each try under a new id.
    AtomicLong nextId = new AtomicLong(10);
    Response answer = Waits.upTo(Duration.ofSeconds(30)).every(Duration.ofMillis(50)).until(
        "a SetLimit reply", () -> {
          conn.send(nextId.getAndIncrement(), new Request.SetLimit(new Limit("warm", "up", 10, 10,
              Mode.HARD, 10_000, 1_000, 0, Policy.FREE_CAPACITY, 0)));
          Response r = conn.read(Kind.SET_LIMIT);
          if (!(r instanceof Response.SetLimitReply)) {
            Response.Error e = assertInstanceOf(Response.Error.class, r);
            assertTrue(e.code() == ErrorCode.UNAVAILABLE || e.code() == ErrorCode.NOT_LEADER,
                e.toString());
          }
          return r;
        }, r -> r instanceof Response.SetLimitReply);
    Response.SetLimitReply set = (Response.SetLimitReply) answer;
    assertEquals(Outcome.SUCCESS, set.outcome(), set.message());
    return conn;
  }

  private static Request setLimit(String tenant, String resource) {
    // The client library's LimitSpec builds the same request: it leaves the length to the cluster.
    LimitSpec spec = LimitSpec.builder(tenant, resource).ratePerSecond(100).burst(50).build();
    return new Request.SetLimit(new dev.ration.wire.lease.Limit(spec.tenant(), spec.resource(),
        spec.ratePerSecond(), spec.burst(), spec.mode(), spec.leaseDuration().toMillis(),
        spec.grace().toMillis(), spec.emergency(), spec.policy(), spec.expectedVersion()));
  }

  private static Request ttlPut(String namespace) {
    return new Request.Ttl(new TtlRequest.Put(namespace, "k", new byte[] {1}, -1));
  }

  private static Request setQuota(String resource) {
    return new Request.Quota(new QuotaRequest.SetQuota(new QuotaSpec("acme", resource, QuotaKind.CONCURRENT, Window.NONE, 10, "jobs", 8, Overage.REJECT,
        0, 0, 0, "alice", 0, "plan")));
  }

  @Test
  void aNodeConfiguredFor256BytesServes256ByteNamesEverywhere(@TempDir Path dir) throws Exception {
    ServerConfig c = config(dir, 256);
    RationNode node = RationNode.start(c);
    try (EndpointSocketTest.Conn conn = connectWhenWritable(c)) {
      conn.send(100, setLimit(LONG, LONG));
      Response.SetLimitReply set = assertInstanceOf(Response.SetLimitReply.class, conn.read(Kind.SET_LIMIT));
      assertEquals(Outcome.SUCCESS, set.outcome(), set.message());

      conn.send(101, new Request.AcquireLease(LONG, LONG, LONG, 40, 20));
      Response.LeaseReply lease = assertInstanceOf(Response.LeaseReply.class, conn.read(Kind.ACQUIRE_LEASE));
      assertEquals(Outcome.SUCCESS, lease.outcome(), lease.message());
      assertEquals(LONG, lease.lease().holder());

      conn.send(102, ttlPut(LONG));
      TtlResponse.WriteReply put = assertInstanceOf(TtlResponse.WriteReply.class,
          assertInstanceOf(Response.Ttl.class, conn.read(Kind.TTL_PUT)).response());
      assertEquals(Outcome.SUCCESS, put.outcome(), put.message());

      conn.send(103, setQuota(LONG));
      QuotaResponse.QuotaSetReply quota = assertInstanceOf(QuotaResponse.QuotaSetReply.class,
          assertInstanceOf(Response.Quota.class, conn.read(Kind.QUOTA_SET)).response());
      assertEquals(Outcome.SUCCESS, quota.outcome(), quota.message());

      // One byte more is past the configured bound.
      conn.send(104, setLimit(LONG + "n", "api"));
      Response.Error e = assertInstanceOf(Response.Error.class, conn.read(Kind.SET_LIMIT));
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
      assertEquals("tenant is 257 UTF-8 bytes, max 256", e.message());
    } finally {
      node.shutdown();
      assertTrue(node.awaitTermination(Duration.ofSeconds(30)));
    }
  }

  @Test
  void aNodeConfiguredFor128BytesRefusesThemNamingTheBound(@TempDir Path dir) throws Exception {
    ServerConfig c = config(dir, 128);
    RationNode node = RationNode.start(c);
    try (EndpointSocketTest.Conn conn = connectWhenWritable(c)) {
      conn.send(100, setLimit(LONG, "api"));
      Response.Error e = assertInstanceOf(Response.Error.class, conn.read(Kind.SET_LIMIT));
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
      assertEquals("tenant is 256 UTF-8 bytes, max 128", e.message());

      conn.send(101, new Request.AcquireLease("warm", "up", LONG, 1, 1));
      e = assertInstanceOf(Response.Error.class, conn.read(Kind.ACQUIRE_LEASE));
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
      assertEquals("holder is 256 UTF-8 bytes, max 128", e.message());

      conn.send(102, ttlPut(LONG));
      TtlResponse.WriteReply put = assertInstanceOf(TtlResponse.WriteReply.class,
          assertInstanceOf(Response.Ttl.class, conn.read(Kind.TTL_PUT)).response());
      assertEquals(Outcome.INVALID_ARGUMENT, put.outcome());
      assertEquals("namespace has 256 UTF-8 bytes, allowed 1..128", put.message());

      conn.send(103, setQuota(LONG));
      QuotaResponse.QuotaSetReply quota = assertInstanceOf(QuotaResponse.QuotaSetReply.class,
          assertInstanceOf(Response.Quota.class, conn.read(Kind.QUOTA_SET)).response());
      assertEquals(Outcome.INVALID_ARGUMENT, quota.outcome());
      assertEquals("resource '" + LONG + "' has 256 UTF-8 bytes, must be 1..128", quota.message());
    } finally {
      node.shutdown();
      assertTrue(node.awaitTermination(Duration.ofSeconds(30)));
    }
  }
}
