package dev.ration.cli;

import dev.ration.client.quota.Item;
import dev.ration.client.quota.ReserveResult;
import dev.ration.client.quota.QuotaDefinition;
import dev.ration.testkit.FreePorts;
import dev.ration.wire.quota.QuotaSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.protocol.QuotaRequest;
import dev.ration.protocol.QuotaResponse;
import dev.ration.client.quota.QuotaClient;
import dev.ration.server.RationNode;
import dev.ration.wire.Outcome;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import dev.ration.server.config.EndpointOptions;
import dev.ration.server.config.ServerConfig;
import dev.ration.server.consensus.ConsensusOptions;
import dev.ration.server.consensus.Peer;
import dev.ration.statemachine.StateOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A request id reused for another request, through the real CLI against a real three-node
 * cluster (Ratis, RocksDB, the Netty endpoint, in this JVM): the commands a user ran when they
 * reused {@code --request-id 7}. The second put is refused definitely (exit 2, INVALID_ARGUMENT
 * naming the request id and the kind it was first used for) and writes nothing; the first value
 * stays; a delete under the same id is refused the same way, never answered with the put's
 * reply; and the first put's retry still gets its first answer.
 */
class ReusedRequestIdClusterTest {
  private static final String CLIENT = "0123456789abcdef0123456789abcdef";

  private static String[] run(String servers, String... args) {
    CommandLine cl = RationCli.commandLine(ClientGateway::open, RationNodeLauncher::start);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    List<String> full = new ArrayList<>(List.of(args));
    full.add("--servers");
    full.add(servers);
    full.add("--timeout");
    full.add("20s");
    int code = cl.execute(full.toArray(String[]::new));
    return new String[] {String.valueOf(code), out.toString(), err.toString()};
  }

  private static List<ServerConfig> configs(Path dir) {
    List<Peer> peers = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      peers.add(new Peer("n" + i, "127.0.0.1:" + FreePorts.next(),
          "127.0.0.1:" + FreePorts.next(), "127.0.0.1:" + FreePorts.next()));
    }
    List<ServerConfig> configs = new ArrayList<>();
    for (Peer self : peers) {
      ConsensusOptions consensus = new ConsensusOptions(self.id(),
          UUID.nameUUIDFromBytes("reused-request-id".getBytes()).toString(), peers,
          dir.resolve(self.id()), Duration.ofMillis(300), Duration.ofMillis(600),
          Duration.ofSeconds(3), 10_000, 0, 1 << 20, 256, 64 << 10, Duration.ofMillis(2), 4,
          1_000, Duration.ofMillis(100), 100, StateOptions.defaults());
      EndpointOptions endpoint = new EndpointOptions(1 << 20, 64, 16, Duration.ofSeconds(5),
          Duration.ofSeconds(30), 1, 256);
      configs.add(new ServerConfig(consensus, self.clientAddress(), self.adminAddress(), endpoint,
          Duration.ofSeconds(2)));
    }
    return configs;
  }

  /**
   * A reservation made under an application key, by a client that then goes away; a new client
   * (a restarted process: new random client id, so a new transport key) retrying with the same
   * key gets the same reservation, through the Java client and the CLI; other arguments under
   * the key are refused.
   */
  private static void keyedReservationSurvivesARestartedClient(List<ServerConfig> configs,
      String servers) {
    RationClientOptions options = RationClientOptions.builder()
        .addresses(configs.stream().map(ServerConfig::clientAddress).toList())
        .requestDeadline(Duration.ofSeconds(20)).build();
    long reservationId;
    try (RationClient first = new RationClient(options)) {
      QuotaClient quotas = first.quotas();
      assertEquals(Outcome.SUCCESS, quotas.setQuota(QuotaDefinition.concurrent("acme", "jobs", 10)
          .unit("jobs").actor("alice").reason("plan").build()).outcome());
      reservationId = quotas.reserve("acme/shop", "jobs", 3, Duration.ofMinutes(10), "order-42")
          .reservationId();
    }
    try (RationClient restarted = new RationClient(options)) {
      QuotaClient quotas = restarted.quotas();
      assertEquals(reservationId, quotas.reserve("acme/shop", "jobs", 3, Duration.ofMinutes(10),
          "order-42").reservationId(), "the restarted client's retry gets the first reservation");
      ReserveResult other = quotas.tryReserve("acme/shop",
          List.of(new Item("jobs", 4)), 0, Duration.ofMinutes(10), "order-42");
      assertEquals(Outcome.INVALID_ARGUMENT, other.outcome(), other.toString());
      assertEquals("idempotency key order-42 in scope acme/shop was first used for reservation "
          + reservationId + " with other arguments; use a new idempotency key", other.message());
    }
    String[] cli = run(servers, "reserve", "--scope", "acme/shop", "--item", "jobs=3",
        "--ttl", "10m", "--idempotency-key", "order-42", "--output", "json");
    assertEquals("0", cli[0], String.join("\n", cli));
    assertTrue(cli[1].contains("\"reservationId\":" + reservationId + ","), cli[1]);
  }

  @Test
  void reusedRequestIdIsRefusedAndTheFirstWriteStands(@TempDir Path dir) throws Exception {
    List<ServerConfig> configs = configs(dir);
    List<RationNode> nodes = new ArrayList<>();
    try {
      for (ServerConfig c : configs) {
        nodes.add(RationNode.start(c));
      }
      String servers = String.join(",", configs.stream().map(ServerConfig::clientAddress).toList());

      String[] first = run(servers, "ttl", "put", "-n", "ns", "k1", "first", "--ttl", "60000",
          "--client-id", CLIENT, "--request-id", "7", "--output", "json");
      assertEquals("0", first[0], String.join("\n", first));

      String[] second = run(servers, "ttl", "put", "-n", "ns", "k2", "second", "--ttl", "60000",
          "--client-id", CLIENT, "--request-id", "7", "--output", "json");
      assertEquals(String.valueOf(Exit.FAILED), second[0], String.join("\n", second));
      assertTrue(second[1].contains("\"outcome\":\"INVALID_ARGUMENT\""), second[1]);
      assertTrue(second[2].contains("INVALID_ARGUMENT: request id 7 of client " + CLIENT
          + " was first used for TTL_PUT with other arguments; use a new request id"), second[2]);

      String[] k2 = run(servers, "ttl", "get", "-n", "ns", "k2", "--output", "json");
      assertEquals(String.valueOf(Exit.FAILED), k2[0], "nothing was written under k2: " + k2[1]);
      assertTrue(k2[1].contains("\"found\":false"), k2[1]);
      String[] k1 = run(servers, "ttl", "get", "-n", "ns", "k1", "--output", "json");
      assertEquals("0", k1[0], String.join("\n", k1));
      assertTrue(k1[1].contains("\"value\":\"first\""), k1[1]);

      String[] delete = run(servers, "ttl", "delete", "-n", "ns", "k1", "--client-id", CLIENT,
          "--request-id", "7", "--output", "json");
      assertEquals(String.valueOf(Exit.FAILED), delete[0], String.join("\n", delete));
      assertTrue(delete[2].contains("INVALID_ARGUMENT: request id 7 of client " + CLIENT
          + " was first used for TTL_PUT, not TTL_DELETE; use a new request id"), delete[2]);
      assertEquals("0", run(servers, "ttl", "get", "-n", "ns", "k1")[0], "k1 was not deleted");

      String[] retry = run(servers, "ttl", "put", "-n", "ns", "k1", "first", "--ttl", "60000",
          "--client-id", CLIENT, "--request-id", "7", "--output", "json");
      assertEquals("0", retry[0], String.join("\n", retry));
      // The instant beside a ledger time is the CLI's reading of it at answer time (docs/CLI.md,
      // "Times"): the replicated answer is everything else, byte for byte.
      assertEquals(withoutInstants(first[1]), withoutInstants(retry[1]),
          "the true retry still gets the first answer");

      keyedReservationSurvivesARestartedClient(configs, servers);
    } finally {
      for (RationNode n : nodes) {
        n.shutdown();
      }
      for (RationNode n : nodes) {
        n.awaitTermination(Duration.ofSeconds(30));
      }
    }
  }

  /** JSON output without the ISO instants the CLI derives from ledger times when it prints. */
  private static String withoutInstants(String json) {
    return json.replaceAll("\"[A-Za-z]+\":\"\\d{4}-\\d{2}-\\d{2}T[^\"]*Z\",?", "");
  }
}
