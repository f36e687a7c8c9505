package dev.ration.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.LimitSpec;
import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.server.RationNode;
import dev.ration.server.config.ServerConfig;
import dev.ration.server.endpoint.NameBoundNodeTest;
import dev.ration.testkit.Waits;
import dev.ration.wire.Outcome;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The limit-get key loop against a real single-node cluster: the limits it reads are set first,
 * every measured read finds its limit, and warm-up completions are counted apart from the window.
 */
class KeyLoopBenchNodeTest {
  @Test
  void limitGetReadsTheLimitsItSet(@TempDir Path dir) throws Exception {
    ServerConfig c = NameBoundNodeTest.config(dir, 128);
    RationNode node = RationNode.start(c);
    try (RationClient client = new RationClient(RationClientOptions.builder()
        .address(c.clientAddress()).requestDeadline(Duration.ofSeconds(20)).build())) {
      assertEquals(Outcome.SUCCESS, Waits.upTo(Duration.ofSeconds(40)).every(Duration.ofMillis(100))
          .retrying("a leader accepting SetLimit", e -> e instanceof RuntimeException,
              () -> client.setLimit(LimitSpec.builder("warm", "up").ratePerSecond(1).burst(1).build())).outcome());

      KeyLoopBench.Result r = readLoop(client, Workload.LIMIT_GET, "reads");
      assertEquals("limit-get", r.op());
      assertTrue(r.ok() > 0, r.toString());
      assertEquals(0, r.rejected(), "every limit read is found: " + r);
      assertEquals(0, r.errors(), r.toString());
      assertTrue(r.warmupCompletions() > 0, r.toString());
      for (int k = 0; k < 8; k++) {
        assertTrue(client.getLimit("reads", "r" + k).isPresent(), "limit r" + k + " was set");
      }
      String json = KeyLoopBench.json(r);
      assertTrue(json.startsWith("{\"op\":\"limit-get\",") && json.contains("\"warmupCompletions\":"), json);

      KeyLoopBench.Result q = readLoop(client, Workload.QUOTA_GET, "acme");
      assertEquals("quota-get", q.op());
      assertTrue(q.ok() > 0, q.toString());
      assertEquals(0, q.rejected(), "every quota read is found: " + q);
      assertEquals(0, q.errors(), q.toString());
      for (int k = 0; k < 8; k++) {
        assertTrue(client.quotas().getQuota("acme", "r" + k).isPresent(), "quota r" + k + " was set");
      }
    } finally {
      node.shutdown();
      node.awaitTermination(Duration.ofSeconds(30));
    }
  }

  /** {@code op} over 8 keys of {@code namespace}, 4 in flight: 0.5 s warm-up, a 2 s window. */
  private static KeyLoopBench.Result readLoop(RationClient client, Workload op, String namespace)
      throws InterruptedException {
    return new KeyLoopBench(List.of(client), op, namespace, 4, 8, 0, -1, System::nanoTime)
        .run(Duration.ofMillis(500).toNanos(), Duration.ofSeconds(2).toNanos(),
            Duration.ofSeconds(20).toNanos(), new PrintWriter(new StringWriter()));
  }
}
