package dev.ration.server.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.testkit.FreePorts;
import dev.ration.wire.ErrorCode;
import dev.ration.protocol.Frame;
import dev.ration.protocol.FrameEncoder;
import dev.ration.protocol.Kind;
import dev.ration.protocol.MessageCodec;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.protocol.TtlRequest;
import dev.ration.server.RationNode;
import dev.ration.server.config.EndpointOptions;
import dev.ration.server.config.ServerConfig;
import dev.ration.server.config.TenantFairness;
import dev.ration.server.consensus.ConsensusOptions;
import dev.ration.server.consensus.Peer;
import dev.ration.statemachine.StateOptions;
import dev.ration.testkit.Waits;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A hot tenant floods a real node with TTL writes; another tenant's writes still complete within
 * their deadline, because the hot one can hold only its share of the group-commit queue. The
 * node proposes one command per entry with one entry in flight, so a queue of thousands takes
 * seconds to drain: with only quota work gated (the control) the cold tenant's writes wait
 * behind the flood and miss their deadline, which shows the test can tell the difference. The
 * control's deadline is short and the fair run's long, so that neither outcome depends on how
 * fast the machine commits; in the fair run the flood refused beyond its share shows the gate.
 */
class TenantFairnessNodeTest {
  private static final int FLOOD = 8_000;
  private static final int COLD = 20;
  /**
   * The cold writes' deadline in the control: far less than the flood takes to drain, so they
   * miss it there.
   */
  private static final int COLD_DEADLINE_MILLIS = 1_000;
  /**
   * The cold writes' deadline where the flood is held to its share: room for the few dozen
   * one-command entries ahead of them, one in flight at a time, on a loaded machine where each
   * commit is slow. The flood beyond its share is refused at once.
   */
  private static final int FAIR_COLD_DEADLINE_MILLIS = 10_000;

  @TempDir Path dir;

  @Test
  void aHotTenantCannotStarveAnother() throws Exception {
    Flood f = flood(TenantFairness.ALL, FAIR_COLD_DEADLINE_MILLIS);
    assertEquals(COLD, f.coldOk, "every write of the cold tenant made its deadline: " + f);
    assertTrue(f.hotOverloaded > FLOOD / 2, "the flood was refused past its share: " + f);
  }

  @Test
  void withOnlyQuotaWorkGatedTheFloodStarvesTheColdTenant() throws Exception {
    Flood f = flood(TenantFairness.QUOTA, COLD_DEADLINE_MILLIS);
    assertTrue(f.coldDeadlineExceeded > 0, "cold writes waited behind the flood: " + f);
    assertEquals(0, f.hotOverloaded, "nothing refused the flood: " + f);
  }

  private record Flood(int coldOk, int coldDeadlineExceeded, int hotOverloaded) {}

  private Flood flood(TenantFairness mode, int coldDeadlineMillis) throws Exception {
    ServerConfig config = config(dir.resolve(mode.configName()), mode);
    RationNode node = RationNode.start(config);
    try (EndpointSocketTest.Conn hot = conn(config, 0x10);
        EndpointSocketTest.Conn cold = conn(config, 0x20)) {
      AtomicLong warm = new AtomicLong(1_000_000);
      Waits.upTo(Duration.ofSeconds(60)).every(Duration.ofMillis(100)).until("a first write", () -> {
        cold.send(warm.getAndIncrement(), put("cold", "warm"));
        return cold.read(Kind.TTL_PUT);
      }, r -> r instanceof Response.Ttl);

      ByteArrayOutputStream burst = new ByteArrayOutputStream();
      for (int i = 0; i < FLOOD; i++) {
        append(burst, 10 + i, put("hot", "k" + i), 60_000);
      }
      hot.out.write(burst.toByteArray());
      hot.out.flush();
      if (mode != TenantFairness.ALL) {
        // The control's cold writes go out once the flood is queued ahead of them.
        Waits.upTo(Duration.ofSeconds(60)).every(Duration.ofMillis(20)).until("the flood queued",
            () -> node.consensus().proposerStats().queueDepth(), depth -> depth > FLOOD / 2);
      }
      ByteArrayOutputStream coldBurst = new ByteArrayOutputStream();
      for (int i = 0; i < COLD; i++) {
        append(coldBurst, 10 + i, put("cold", "k" + i), coldDeadlineMillis);
      }
      cold.out.write(coldBurst.toByteArray());
      cold.out.flush();
      int ok = 0;
      int late = 0;
      for (int i = 0; i < COLD; i++) {
        Response r = cold.read(Kind.TTL_PUT);
        if (r instanceof Response.Ttl) {
          ok++;
        } else if (assertInstanceOf(Response.Error.class, r).code() == ErrorCode.DEADLINE_EXCEEDED) {
          late++;
        }
      }
      int overloaded = 0;
      if (mode == TenantFairness.ALL) {
        for (int i = 0; i < FLOOD; i++) {
          Response r = hot.read(Kind.TTL_PUT);
          if (r instanceof Response.Error e && e.code() == ErrorCode.OVERLOADED) {
            overloaded++;
          }
        }
      }
      return new Flood(ok, late, overloaded);
    } finally {
      node.abort();
      node.awaitTermination(Duration.ofSeconds(30));
    }
  }

  private static ServerConfig config(Path data, TenantFairness mode) {
    String client = "127.0.0.1:" + FreePorts.next();
    String admin = "127.0.0.1:" + FreePorts.next();
    Peer self = new Peer("n1", "127.0.0.1:" + FreePorts.next(), client, admin);
    ConsensusOptions consensus = new ConsensusOptions(
        "n1", UUID.nameUUIDFromBytes("fairness-test".getBytes()).toString(), List.of(self), data,
        Duration.ofMillis(300), Duration.ofMillis(600), Duration.ofSeconds(3),
        100_000, 0, 1 << 20,
        1, 64 << 10, Duration.ZERO, 1, 16_384,
        Duration.ofMillis(100), 100, StateOptions.defaults());
    EndpointOptions endpoint = new EndpointOptions(
        1 << 20, 2 * FLOOD, 16, Duration.ofSeconds(5), Duration.ofSeconds(60), 1, 32, mode);
    return new ServerConfig(consensus, client, admin, endpoint, Duration.ofSeconds(2));
  }

  private static EndpointSocketTest.Conn conn(ServerConfig config, long clientLow) throws Exception {
    EndpointSocketTest.Conn conn = new EndpointSocketTest.Conn(Addresses.parse(config.clientAddress()));
    conn.socket.setSoTimeout(120_000);
    conn.hello(clientLow);
    return conn;
  }

  private static Request put(String namespace, String key) {
    return new Request.Ttl(new TtlRequest.Put(namespace, key, new byte[] {1}, 600_000));
  }

  private static void append(ByteArrayOutputStream out, long requestId, Request r, int timeoutMillis) {
    ByteBuf b = Unpooled.buffer();
    FrameEncoder.writeTo(MessageCodec.requestFrame(requestId, timeoutMillis, r), b, Integer.MAX_VALUE);
    byte[] bytes = new byte[b.readableBytes()];
    b.readBytes(bytes);
    b.release();
    out.writeBytes(bytes);
  }
}
