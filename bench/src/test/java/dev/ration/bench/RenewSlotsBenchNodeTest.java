package dev.ration.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.LimitSpec;
import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.client.transport.RawClient;
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
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The renew-slots bench against a real single-node cluster (Ratis, RocksDB, the client endpoint
 * on loopback): slot leases that expired before their renewals are counted as refused, by
 * outcome, not lost. The command as an operator runs it is dev.ration.cli.RenewSlotsBenchNodeTest.
 */
class RenewSlotsBenchNodeTest {
  @Test
  void countsExpiredSlotLeasesAsRefused(@TempDir Path dir) throws Exception {
    ServerConfig c = NameBoundNodeTest.config(dir, 128);
    RationNode node = RationNode.start(c);
    try (RationClient client = new RationClient(RationClientOptions.builder()
        .address(c.clientAddress()).requestDeadline(Duration.ofSeconds(20)).build())) {
      assertEquals(Outcome.SUCCESS, Waits.upTo(Duration.ofSeconds(40)).every(Duration.ofMillis(100))
          .retrying("a leader accepting SetLimit", e -> e instanceof RuntimeException,
              () -> client.setLimit(LimitSpec.builder("warm", "up").ratePerSecond(1).burst(1).build())).outcome());

      // A wrong set-up: leases of 200 ms (no grace) that have expired before their renewals.
      RenewBatchBench bench = new RenewBatchBench(RenewBatchBench.Leased.SLOTS, List.of(client), "expired",
          2, 40, 20, Duration.ofMillis(200), Duration.ZERO, System::nanoTime);
      List<RenewBatchBench.Held> held = bench.acquire(new PrintWriter(new StringWriter()));
      assertEquals(40, held.size());
      // The ledger's own view: no live slot demand left on the limit.
      Waits.upTo(Duration.ofSeconds(30)).every(Duration.ofMillis(50)).until("the slot leases expired on the ledger",
          () -> ((Response.SlotsReply) RawClient.of(client)
              .call(new Request.GetSlots("expired", "renew-slots-0", false)).join()).status().demandSlots(),
          demand -> demand == 0);
      RenewBatchBench.Result r = bench.renew(held, 0, Duration.ofSeconds(3).toNanos(), Duration.ofSeconds(20).toNanos());
      assertEquals(0, r.renewed(), r.toString());
      assertTrue(r.batches() > 0, r.toString());
      assertEquals(r.batches() * 20, r.refused(), "every renewal of every batch refused and counted: " + r);
      assertEquals(Map.of(Outcome.LEASE_EXPIRED, r.refused()), r.refusals(), r.toString());
      assertEquals(0, r.failedBatches(), "refused one by one, not as whole frames: " + r);
      assertTrue(RenewBatchBench.table(r).contains("refused       " + r.refused() + " renewals {LEASE_EXPIRED="),
          RenewBatchBench.table(r));
    } finally {
      node.shutdown();
      node.awaitTermination(Duration.ofSeconds(30));
    }
  }

  /** The JSON line of either op: every field a number where one is due, refusals by outcome. */
  @Test
  void jsonNamesTheOpAndCountsRefusalsByOutcome() {
    LatencySummary l = new LatencySummary(3, 1_000, 2_000, 3_000, 4_000, 5_000, 1_500);
    String json = RenewBatchBench.json(new RenewBatchBench.Result("renew-batch", 4, 1, 20_000, 1_000, 10,
        270_000, 7, 1, 280, l, new java.util.TreeMap<>(Map.of(Outcome.LEASE_EXPIRED, 5L, Outcome.VERSION_MISMATCH, 2L))));
    assertEquals("{\"op\":\"renew-batch\",\"inFlight\":4,\"connections\":1,\"leases\":20000,\"batchSize\":1000,"
        + "\"windowSeconds\":10.000,\"renewed\":270000,\"renewedPerSecond\":27000.0,\"batches\":280,"
        + "\"refused\":7,\"refusals\":{\"LEASE_EXPIRED\":5,\"VERSION_MISMATCH\":2},\"failedBatches\":1,"
        + "\"batchLatencyMicros\":{\"p50\":1000,\"p90\":2000,\"p99\":3000,\"p999\":4000,\"max\":5000}}", json);
  }
}
