package dev.ration.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.quota.QuotaClient;
import dev.ration.client.quota.QuotaDefinition;
import dev.ration.client.quota.Reservation;
import dev.ration.server.RationNode;
import dev.ration.server.config.EndpointOptions;
import dev.ration.server.config.ServerConfig;
import dev.ration.server.consensus.ConsensusOptions;
import dev.ration.server.consensus.Peer;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.quota.QuotaOptions;
import dev.ration.testkit.FreePorts;
import dev.ration.testkit.Waits;
import dev.ration.wire.Outcome;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Usage log compaction on a real single-node RationNode (Ratis, RocksDB, the endpoint), seen
 * through `ration usage read|ack` over TCP: with a usage retention of 15 s and a maximum of 40 s,
 * the record a consumer acknowledged goes first, the ones it did not go at the maximum, and the
 * consumer's next read fails with a definite error naming what it lost, until it acknowledges
 * the gap.
 */
class UsageRetentionCliTest {
  private static ServerConfig config(Path dir) {
    String client = "127.0.0.1:" + FreePorts.next();
    String admin = "127.0.0.1:" + FreePorts.next();
    Peer self = new Peer("n1", "127.0.0.1:" + FreePorts.next(), client, admin);
    StateOptions state = StateOptions.defaults().withQuota(
        new QuotaOptions(1_000, 1_000, 60_000, 3_600_000, 16, 100_000)
            .withUsageRetention(15_000, 40_000));
    ConsensusOptions consensus = new ConsensusOptions("n1",
        UUID.nameUUIDFromBytes("usage-retention-test".getBytes()).toString(), List.of(self), dir,
        Duration.ofMillis(300), Duration.ofMillis(600), Duration.ofSeconds(3), 10_000, 0, 1 << 20,
        256, 64 << 10, Duration.ofMillis(2), 4, 1_000, Duration.ofMillis(100), 100, state);
    EndpointOptions endpoint =
        new EndpointOptions(1 << 20, 64, 16, Duration.ofSeconds(5), Duration.ofSeconds(30), 1, 256);
    return new ServerConfig(consensus, client, admin, endpoint, Duration.ofSeconds(2));
  }

  /** `ration GROUP COMMAND --servers SERVER ARGS...`. */
  private static String[] cli(String server, String... args) {
    String[] full = new String[args.length + 2];
    full[0] = args[0];
    full[1] = args[1];
    full[2] = "--servers";
    full[3] = server;
    System.arraycopy(args, 2, full, 4, args.length - 2);
    return CliRuns.cli(full);
  }

  @Test
  void aConsumerThatStallsPastTheMaximumRetentionIsToldWhatItLost(@TempDir Path dir)
      throws Exception {
    ServerConfig c = config(dir);
    RationNode node = RationNode.start(c);
    try (RationClient client = new RationClient(RationClientOptions.builder()
        .address(c.clientAddress()).requestDeadline(Duration.ofSeconds(20)).build())) {
      QuotaClient quotas = client.quotas();
      assertEquals(Outcome.SUCCESS, quotas.setQuota(QuotaDefinition.concurrent("acme", "jobs", 100)
          .unit("jobs").actor("ops").reason("test").build()).outcome());
      for (int i = 0; i < 3; i++) {
        try (Reservation r = quotas.reserve("acme/web", "jobs", 2, Duration.ofMinutes(1))) {
          r.actual(1);
        }
      }
      String server = c.clientAddress();
      String[] ack = cli(server, "usage", "ack", "--consumer", "billing", "--sequence", "1");
      assertEquals("0", ack[0], ack[2]);
      String[] read = cli(server, "usage", "read", "--consumer", "billing", "--output", "json");
      assertEquals("0", read[0], read[2]);
      assertTrue(read[1].contains("\"sequence\":2") && read[1].contains("\"sequence\":3")
          && !read[1].contains("\"sequence\":1,"), read[1]);

      // Records 2 and 3 were written moments apart, so each passes the maximum retention in its
      // own Tick: a read between the two is refused for record 2 alone, which is right too.
      String[] stalled = Waits.upTo(Duration.ofSeconds(180)).every(Duration.ofMillis(200)).until(
          "billing's read refused once records 2..3 passed the maximum retention",
          () -> cli(server, "usage", "read", "--consumer", "billing"), r -> {
            if ("0".equals(r[0])) {
              return false;
            }
            assertTrue(r[2].contains("records 2..3") || (r[2].contains("records 2..2")
                && r[2].contains("Acknowledge sequence 2")), r[2]);
            return r[2].contains("records 2..3");
          });
      assertTrue(stalled[2].contains("consumer billing stalled")
          && stalled[2].contains("records 2..3") && stalled[2].contains("Acknowledge sequence 3"),
          stalled[2]);
      String[] from = cli(server, "usage", "read", "--from", "1");
      assertNotEquals("0", from[0], from[1]);
      assertTrue(from[2].contains("usage records 1..3 were compacted"), from[2]);

      String[] skip = cli(server, "usage", "ack", "--consumer", "billing", "--sequence", "3");
      assertEquals("0", skip[0], skip[2]);
      try (Reservation r = quotas.reserve("acme/web", "jobs", 1, Duration.ofMinutes(1))) {
        r.actual(1);
      }
      String[] after = cli(server, "usage", "read", "--consumer", "billing", "--output", "json");
      assertEquals("0", after[0], after[2]);
      assertTrue(after[1].contains("\"sequence\":4"), after[1]);
    } finally {
      node.shutdown();
      node.awaitTermination(Duration.ofSeconds(30));
    }
  }
}
