package dev.ration.cli;

import dev.ration.protocol.Response;
import dev.ration.protocol.Request;
import dev.ration.client.quota.QuotaDefinition;
import dev.ration.client.transport.RawClient;
import dev.ration.testkit.FreePorts;
import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.EventType;
import dev.ration.wire.quota.UsageEvent;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.wire.Outcome;
import dev.ration.protocol.QuotaRequest;
import dev.ration.protocol.QuotaResponse;
import dev.ration.client.quota.QuotaClient;
import dev.ration.client.quota.QuotaRefusedException;
import dev.ration.client.quota.Reservation;
import dev.ration.server.RationNode;
import dev.ration.server.config.EndpointOptions;
import dev.ration.server.config.ServerConfig;
import dev.ration.server.consensus.ConsensusOptions;
import dev.ration.server.consensus.Peer;
import dev.ration.statemachine.StateOptions;
import dev.ration.testkit.Waits;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Quotas end to end on real parts: a single-node RationNode (Ratis, RocksDB, the Netty
 * endpoint), the Java client's reservation as try-with-resources (completes with the actual
 * amount, cancels on an exception), refusals naming the level, the usage log with a consumer
 * cursor, and the `ration quota|reserve|reservation|usage|audit` commands over TCP.
 */
class QuotaEndToEndTest {

  private static ServerConfig config(Path dir) {
    String client = "127.0.0.1:" + FreePorts.next();
    String admin = "127.0.0.1:" + FreePorts.next();
    Peer self = new Peer("n1", "127.0.0.1:" + FreePorts.next(), client, admin);
    ConsensusOptions consensus = new ConsensusOptions("n1",
        UUID.nameUUIDFromBytes("quota-e2e-test".getBytes()).toString(), List.of(self), dir,
        Duration.ofMillis(300), Duration.ofMillis(600), Duration.ofSeconds(3), 10_000, 0, 1 << 20,
        256, 64 << 10, Duration.ofMillis(2), 4, 1_000, Duration.ofMillis(100), 100,
        StateOptions.defaults());
    EndpointOptions endpoint =
        new EndpointOptions(1 << 20, 64, 16, Duration.ofSeconds(5), Duration.ofSeconds(30), 1, 256);
    return new ServerConfig(consensus, client, admin, endpoint, Duration.ofSeconds(2));
  }

  private static String[] cli(String server, String... args) {
    CommandLine cl = RationCli.commandLine(ClientGateway::open, RationNodeLauncher::start);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    String[] full = new String[args.length + 2];
    full[0] = args[0];
    int i = 1;
    if (args.length > 1 && !args[1].startsWith("-")) {
      full[1] = args[1];
      i = 2;
    }
    System.arraycopy(args, i, full, i + 2, args.length - i);
    full[i] = "--servers";
    full[i + 1] = server;
    int code = cl.execute(full);
    return new String[] {String.valueOf(code), out.toString(), err.toString()};
  }

  @Test
  void reservationsUsageAndCliOverTheNetwork(@TempDir Path dir) throws Exception {
    ServerConfig c = config(dir);
    RationNode node = RationNode.start(c);
    try (RationClient client = new RationClient(RationClientOptions.builder()
        .address(c.clientAddress()).requestDeadline(Duration.ofSeconds(20)).build())) {
      QuotaClient quotas = client.quotas();
      assertEquals(Outcome.SUCCESS, quotas.setQuota(QuotaDefinition.concurrent("acme", "jobs", 10)
          .unit("jobs").softLimit(8).actor("alice").reason("plan").build()).outcome());
      assertEquals(Outcome.SUCCESS, quotas.setQuota(QuotaDefinition.concurrent("acme/shop", "jobs", 4)
          .unit("jobs").actor("alice").reason("tenant share").build()).outcome());

      long completedId;
      try (Reservation r = quotas.reserve("acme/shop/web", "jobs", 3, Duration.ofMinutes(1))) {
        completedId = r.reservationId();
        r.actual(2);
      }
      long cancelledId;
      Reservation[] held = new Reservation[1];
      RuntimeException boom = assertThrows(IllegalStateException.class, () -> {
        try (Reservation r = quotas.reserve("acme/shop/web", "jobs", 4, Duration.ofMinutes(1))) {
          held[0] = r;
          throw new IllegalStateException("work failed");
        }
      });
      assertEquals("work failed", boom.getMessage());
      cancelledId = held[0].reservationId();
      assertEquals(EventType.CANCELLED, held[0].settlement().orElseThrow().how().orElseThrow(), "close() after an exception cancels");

      try (Reservation a = quotas.reserve("acme/shop/web", "jobs", 4, Duration.ofMinutes(1))) {
        QuotaRefusedException no = assertThrows(QuotaRefusedException.class,
            () -> quotas.reserve("acme/shop/api", "jobs", 1, Duration.ofMinutes(1)));
        assertEquals("acme/shop", no.levelScope(), "the tenant level refuses");
        assertEquals(Outcome.LIMIT_EXHAUSTED, no.outcome());
        a.actual(4);
      }

      QuotaResponse.UsageBatch log = readUsage(client, "billing", 0);
      assertEquals(List.of(completedId, cancelledId), log.events().stream().limit(2)
          .map(UsageEvent::reservationId).toList());
      assertEquals(List.of(2L, 0L), log.events().stream().limit(2)
          .map(UsageEvent::quantity).toList());
      RawClient.of(client).call(new Request.Quota(new QuotaRequest.AckUsage("billing", log.events().get(0).sequence())),
          Response.Quota.class).join();
      assertEquals(log.events().size() - 1, readUsage(client, "billing", 0).events().size());

      // A soft-threshold crossing at the org (soft 8): one ALERT record, and the metric shows it.
      quotas.reserve("acme/other", "jobs", 8, Duration.ofMinutes(1)).cancel();
      assertEquals(1, readUsage(client, "", 1).events().stream()
          .filter(e -> e.type() == EventType.ALERT).count());
      java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
      // The counter is refreshed periodically, not on the write.
      Waits.upTo(Duration.ofSeconds(30)).every(Duration.ofMillis(100)).until(
          "ration_quota_alerts_raised_total 1.0 on /metrics",
          () -> http.send(java.net.http.HttpRequest.newBuilder(
                  java.net.URI.create("http://" + c.adminAddress() + "/metrics")).build(),
              java.net.http.HttpResponse.BodyHandlers.ofString()).body(),
          metrics -> metrics.contains("ration_quota_alerts_raised_total 1.0"));

      String server = c.clientAddress();
      String[] list = cli(server, "quota", "list", "--output", "json");
      assertEquals("0", list[0], list[2]);
      assertTrue(list[1].contains("\"scope\":\"acme/shop\""), list[1]);
      String[] reserve = cli(server, "reserve", "--scope", "acme/shop/web", "--item", "jobs=1");
      assertEquals("0", reserve[0], reserve[2]);
      String[] refused = cli(server, "reserve", "--scope", "acme/shop/web", "--item", "jobs=9");
      assertEquals("2", refused[0], refused[1]);
      assertTrue(refused[2].contains("LIMIT_EXHAUSTED"), refused[2]);
      String[] reservations = cli(server, "reservation", "list", "--output", "json");
      assertTrue(reservations[1].contains("acme/shop/web"), reservations[1]);
      // Budgets: one held by a holder shows in `quota budgets`, with its times as instants.
      assertEquals(Outcome.SUCCESS, quotas.setQuota(QuotaDefinition.rate("acme", "calls", 100,
          dev.ration.wire.Window.HOUR).build()).outcome());
      var budget = quotas.grantBudget("eu-1", "acme/shop/web", "calls", 30, Duration.ofMinutes(1));
      assertEquals(30, budget.granted(), budget.message());
      String[] budgets = cli(server, "quota", "budgets", "--scope", "acme", "--output", "json");
      assertEquals("0", budgets[0], budgets[2]);
      assertTrue(budgets[1].contains("\"holder\":\"eu-1\"") && budgets[1].contains("\"granted\":30")
          && budgets[1].contains("\"expiresAt\":\"20"), budgets[1]);
      String[] table = cli(server, "quota", "budgets");
      assertEquals("0", table[0], table[2]);
      assertTrue(table[1].lines().findFirst().orElse("").matches("BUDGET-ID\\s+HOLDER\\s+SCOPE"
          + "\\s+RESOURCE\\s+GRANTED\\s+SPENT\\s+EXPIRES-AT\\s+WINDOW-ENDS-AT\\s+LAPSED\\s*"), table[1]);
      assertTrue(table[1].contains("eu-1") && table[1].contains("acme/shop/web"), table[1]);
      assertEquals(Outcome.SUCCESS, quotas.returnBudget(budget.budgetId(), 0, 1).outcome());
      assertFalse(cli(server, "quota", "budgets", "--output", "json")[1].contains("eu-1"));
      String[] history = cli(server, "quota", "history", "--scope", "acme", "--resource", "jobs");
      assertEquals("0", history[0], history[2]);
      String[] audit = cli(server, "audit", "--output", "json");
      assertTrue(audit[1].contains("quota.set") && audit[1].contains("alice"), audit[1]);
      // The ledger time is shown as an instant too, from a reading of the real node's clock.
      assertTrue(audit[1].matches("(?s).*\"at\":\"\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z\".*"), audit[1]);
      assertEquals("", audit[2]);
      String[] ingest = cli(server, "usage", "ingest", "--event-id", "svc-1", "--time",
          String.valueOf(log.events().get(0).eventTimeMillis()), "--scope", "acme/shop",
          "--resource", "jobs", "--quantity", "1");
      assertEquals("0", ingest[0], ingest[2]);
      String[] read = cli(server, "usage", "read", "--from", "1", "--output", "json");
      assertTrue(read[1].contains("svc-1"), read[1]);
      String[] aggregate = cli(server, "usage", "aggregate", "--scope", "acme", "--output", "json");
      assertEquals("0", aggregate[0], aggregate[2]);
      String[] reconcile = cli(server, "usage", "reconcile", "--scope", "acme/shop/web");
      assertEquals("0", reconcile[0], reconcile[2]);
    } finally {
      node.shutdown();
      node.awaitTermination(Duration.ofSeconds(30));
    }
  }

  /** The usage log is read by pipelines and the CLI over the wire, not by the service API. */
  private static QuotaResponse.UsageBatch readUsage(RationClient client, String consumer, long from) {
    Response.Quota r = RawClient.of(client).call(
        new Request.Quota(new QuotaRequest.ReadUsage(consumer, from, 100)), Response.Quota.class).join();
    return (QuotaResponse.UsageBatch) r.response();
  }
}
