package dev.ration.cli;

import dev.ration.wire.lease.Limit;
import dev.ration.wire.Mode;
import dev.ration.wire.Policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.server.config.ConfigLoader;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Goal: bad command lines exit 1 with one clear line and send nothing; good ones send what they say. */
class CliParsingTest {
  private final CliHarness h = new CliHarness();

  private void assertUsage(String expectedErrLine, String... args) {
    CliHarness.Run r = h.run(args);
    assertEquals(Exit.USAGE, r.exitCode(), r.toString());
    assertTrue(r.err().startsWith("error: " + expectedErrLine), r.toString());
    assertTrue(h.gateway.requests.isEmpty(), "nothing sent: " + h.gateway.requests);
  }

  @Test
  void usageErrorsExitOne() {
    assertUsage("name a command");
    assertUsage("Unmatched argument at index 0: 'frobnicate'", "frobnicate");
    assertUsage("Missing required options: '--rate=N', '--burst=N'", "limit", "set", "--tenant", "t", "--resource", "r");
    assertUsage("Invalid value for option '--mode': 'soft' is not a mode (hard, best-effort)",
        "limit", "set", "--tenant", "t", "--resource", "r", "--rate", "1", "--burst", "1", "--mode", "soft");
    assertUsage("Invalid value for option '--rate': 'ten' is not a long",
        "limit", "set", "--tenant", "t", "--resource", "r", "--rate", "ten", "--burst", "1");
    assertUsage("--servers: 'localhost' is not host:port", "limit", "list", "--servers", "localhost");
    assertUsage("--timeout: '5' is not a duration", "limit", "list", "--timeout", "5");
    assertUsage("--request-id needs --client-id", "lease", "return", "--lease-id", "1", "--version", "1", "--request-id", "7");
    assertUsage("--client-id: 'xyz' is not a client id", "lease", "return", "--lease-id", "1", "--version", "1", "--client-id", "xyz");
    assertUsage("--lease-duration: '10sec' is not a duration",
        "limit", "set", "--tenant", "t", "--resource", "r", "--rate", "1", "--burst", "1", "--lease-duration", "10sec");
    assertUsage("give both --tenant and --resource, or neither", "lease", "list", "--tenant", "acme");
    assertUsage("Invalid value for option '--output'", "limit", "list", "--output", "xml");
    assertUsage("Error: --config=FILE, --node=ID are mutually exclusive", "server", "--config", "a.yaml", "--node", "n1");
    assertUsage("Error: Missing required argument (specify one of these): (--config=FILE | --node=ID)", "server");
  }

  @Test
  void helpAndVersionExitZero() {
    CliHarness.Run help = h.run("--help");
    assertEquals(0, help.exitCode());
    assertTrue(help.out().contains("server") && help.out().contains("lease") && help.out().contains("Exit codes:"), help.out());
    CliHarness.Run sub = h.run("lease", "renew", "--help");
    assertEquals(0, sub.exitCode());
    assertTrue(sub.out().contains("--lease-id") && sub.out().contains("--request-id"), sub.out());
    CliHarness.Run v = h.run("--version");
    assertEquals(0, v.exitCode());
    assertTrue(v.out().startsWith("ration "), v.out());
  }

  @Test
  void defaultServersAreTheEmbeddedClustersClientAddresses() throws Exception {
    h.gateway.script = r -> new Response.LimitList(List.of());
    CliHarness.Run r = h.run("limit", "list");
    assertEquals(0, r.exitCode(), r.toString());
    List<String> embedded = ConfigLoader.loadEmbedded("n1", Optional.empty()).consensus().peers().stream()
        .map(p -> p.clientAddress()).toList();
    // RATION_SERVERS would override the default; the build does not set it.
    if (System.getenv("RATION_SERVERS") == null) {
      assertEquals(embedded, h.gateway.servers);
    }
    assertEquals(Duration.ofSeconds(5), h.gateway.timeout);
    assertTrue(h.gateway.closed, "gateway closed after the command");
  }

  @Test
  void limitSetSendsEveryOptionWithItsIdentity() {
    h.gateway.script = r -> new Response.SetLimitReply(dev.ration.wire.Outcome.SUCCESS, "", 3,
        CliHarness.limit("acme", "api", 100, 200, 3));
    CliHarness.Run r = h.run("limit", "set", "--tenant", "acme", "--resource", "api", "--rate", "100", "--burst", "200",
        "--mode", "best-effort", "--lease-duration", "30s", "--grace", "1500ms", "--emergency", "5",
        "--expected-version", "2", "--servers", "10.0.0.1:7101, 10.0.0.2:7101", "--timeout", "750ms",
        "--client-id", "00000000-0000-0001-0000-000000000002", "--request-id", "42");
    assertEquals(0, r.exitCode(), r.toString());
    assertEquals(List.of(new Request.SetLimit(new Limit("acme", "api", 100, 200, Mode.BEST_EFFORT, 30_000, 1_500, 5, Policy.FREE_CAPACITY, 2))), h.gateway.requests);
    assertEquals(List.of(Optional.of(42L)), h.gateway.requestIds);
    assertEquals(Optional.of(new ClusterGateway.ClientIdentity(1, 2)), h.gateway.clientId);
    assertEquals(List.of("10.0.0.1:7101", "10.0.0.2:7101"), h.gateway.servers);
    assertEquals(Duration.ofMillis(750), h.gateway.timeout);
  }

  @Test
  void clientIdForms() {
    assertEquals(new ClusterGateway.ClientIdentity(0, 0xabc), ClusterGateway.ClientIdentity.parseHex("abc"));
    assertEquals(new ClusterGateway.ClientIdentity(-1, -1), ClusterGateway.ClientIdentity.parseHex("0xffffffffffffffffffffffffffffffff"));
    assertEquals("0000000000000001ffffffffffffffff", new ClusterGateway.ClientIdentity(1, -1).hex());
  }
}
