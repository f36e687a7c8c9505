package dev.ration.examples;

import dev.ration.client.quota.QuotaDefinition;
import dev.ration.testkit.FreePorts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.LimitSpec;
import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.protocol.QuotaRequest;
import dev.ration.server.RationNode;
import dev.ration.server.config.EndpointOptions;
import dev.ration.server.config.ServerConfig;
import dev.ration.server.consensus.ConsensusOptions;
import dev.ration.server.consensus.Peer;
import dev.ration.statemachine.StateOptions;
import dev.ration.testkit.Waits;
import dev.ration.wire.Outcome;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example service end to end: a real single-node cluster (Ratis, RocksDB, the Netty
 * endpoint), the service on embedded Jetty, requests over real HTTP. Goal: what docs/CLIENT.md
 * says the example does, it does — admission with 429s over the limit, one reservation per
 * idempotency key, fencing tokens that grow.
 */
class JobServiceTest {
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private HttpResponse<String> send(int port, String method, String path, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10)).method(method, HttpRequest.BodyPublishers.noBody());
    if (headers.length > 0) {
      b.headers(headers);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void admitsReservesOncePerKeyAndFencesLocks(@TempDir Path dir) throws Exception {
    String clientAddress = "127.0.0.1:" + FreePorts.next();
    Peer self = new Peer("n1", "127.0.0.1:" + FreePorts.next(), clientAddress, "127.0.0.1:" + FreePorts.next());
    ConsensusOptions consensus = new ConsensusOptions("n1",
        UUID.nameUUIDFromBytes(("examples-" + dir).getBytes()).toString(), List.of(self), dir,
        Duration.ofMillis(300), Duration.ofMillis(600), Duration.ofSeconds(3), 10_000, 0, 1 << 20,
        256, 64 << 10, Duration.ofMillis(2), 4, 1_000, Duration.ofMillis(100), 100,
        StateOptions.defaults());
    EndpointOptions endpoint =
        new EndpointOptions(1 << 20, 64, 16, Duration.ofSeconds(5), Duration.ofSeconds(30), 1, 256);
    RationNode node = RationNode.start(new ServerConfig(consensus, clientAddress, self.adminAddress(),
        endpoint, Duration.ofSeconds(2)));
    try (RationClient client = new RationClient(RationClientOptions.builder()
        .addresses(List.of(clientAddress)).requestDeadline(Duration.ofSeconds(5)).build())) {
      // What an operator sets up (bin/ration limit set / quota set in docs/CLIENT.md).
      LimitSpec spec = LimitSpec.builder("acme", "api").ratePerSecond(2).burst(2).build();
      assertEquals(Outcome.SUCCESS, Waits.upTo(Duration.ofSeconds(40)).every(Duration.ofMillis(100))
          .retrying("a leader accepting SetLimit", e -> e instanceof RuntimeException,
              () -> client.setLimit(spec)).outcome());
      assertEquals(Outcome.SUCCESS, client.quotas().setQuota(QuotaDefinition.concurrent("acme", "jobs", 5)
          .unit("jobs").actor("ops").reason("plan").build()).outcome());

      try (JobService service = JobService.start(client, 0)) {
        int port = service.port();
        String[] acme = {"Authorization", "Bearer acme"};

        // Admission: a burst of 10 is mostly refused (rate 2/s, burst 2), then let in later. What
        // may pass depends on how long the 10 took: the burst of 2 plus what 2/s refilled
        // meanwhile (a loaded machine is slow).
        int ok = 0;
        int refused = 0;
        long start = System.nanoTime();
        for (int i = 0; i < 10; i++) {
          int status = send(port, "GET", "/api/hello", acme).statusCode();
          ok += status == 200 ? 1 : 0;
          refused += status == 429 ? 1 : 0;
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        assertEquals(10, ok + refused);
        long allowed = 2 + (long) Math.ceil(2 * seconds);
        assertTrue(ok <= allowed, "rate 2/s, burst 2: at most " + allowed + " of 10 pass in " + seconds
            + " s, got " + ok + " (refused " + refused + ")");
        HttpResponse<String> hello = send(port, "GET", "/api/hello", acme);
        for (int i = 0; i < 20 && hello.statusCode() == 429; i++) {
          Thread.sleep(1000L * Long.parseLong(hello.headers().firstValue("Retry-After").orElse("1")));
          hello = send(port, "GET", "/api/hello", acme);
        }
        assertEquals("hello acme", hello.body().trim());

        // A reservation under a key, resent: the same reservation, not a second one.
        HttpResponse<String> first = admitted(port, "POST", "/api/jobs?jobs=3", "Authorization", "Bearer acme",
            "Idempotency-Key", "order-17");
        HttpResponse<String> again = admitted(port, "POST", "/api/jobs?jobs=3", "Authorization", "Bearer acme",
            "Idempotency-Key", "order-17");
        assertEquals(201, first.statusCode(), first.body());
        assertEquals(first.body(), again.body(), "one reservation per key");
        // Another key: 3 + 3 > 5, refused like a rate limit.
        HttpResponse<String> over = admitted(port, "POST", "/api/jobs?jobs=3", "Authorization", "Bearer acme",
            "Idempotency-Key", "order-18");
        assertEquals(429, over.statusCode(), over.body());
        assertTrue(over.headers().firstValue("Retry-After").isPresent());

        // Locks: a token for the holder, 409 for anyone else.
        HttpResponse<String> lock = admitted(port, "POST", "/api/lock?name=report&owner=w1", acme);
        assertEquals(200, lock.statusCode(), lock.body());
        assertTrue(lock.body().startsWith("fencing token "), lock.body());
        assertTrue(Long.parseLong(lock.body().trim().substring("fencing token ".length())) > 0);
        assertEquals(409, admitted(port, "POST", "/api/lock?name=report&owner=w2", acme).statusCode());
      }
    } finally {
      node.shutdown();
    }
  }

  /** Sends until the limiter lets the request through (bounded), and answers the app's reply. */
  private HttpResponse<String> admitted(int port, String method, String path, String... headers) throws Exception {
    HttpResponse<String> r = send(port, method, path, headers);
    for (int i = 0; i < 20 && r.statusCode() == 429 && r.body().contains("rate limited"); i++) {
      Thread.sleep(1000L * Long.parseLong(r.headers().firstValue("Retry-After").orElse("1")));
      r = send(port, method, path, headers);
    }
    return r;
  }
}
