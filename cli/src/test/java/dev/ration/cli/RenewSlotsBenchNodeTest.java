package dev.ration.cli;

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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * `ration bench --op renew-slots` against a real single-node cluster (Ratis, RocksDB, the client
 * endpoint on loopback), briefly: the command renews live slot leases with nothing refused. No
 * figure is asserted beyond "more than zero". The load generator's own side (expired leases
 * counted as refused, the JSON line) is dev.ration.bench.RenewSlotsBenchNodeTest.
 */
class RenewSlotsBenchNodeTest {
  @Test
  void renewsSlotLeasesInBatches(@TempDir Path dir) throws Exception {
    ServerConfig c = NameBoundNodeTest.config(dir, 128);
    RationNode node = RationNode.start(c);
    try (RationClient client = new RationClient(RationClientOptions.builder()
        .address(c.clientAddress()).requestDeadline(Duration.ofSeconds(20)).build())) {
      assertEquals(Outcome.SUCCESS, Waits.upTo(Duration.ofSeconds(40)).every(Duration.ofMillis(100))
          .retrying("a leader accepting SetLimit", e -> e instanceof RuntimeException,
              () -> client.setLimit(LimitSpec.builder("warm", "up").ratePerSecond(1).burst(1).build())).outcome());

      // The command as an operator runs it, JSON out.
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      CommandLine cl = new CommandLine(new BenchCommand());
      cl.setOut(new PrintWriter(out, true));
      cl.setErr(new PrintWriter(err, true));
      int code = cl.execute("--op", "renew-slots", "--servers", c.clientAddress(), "--insecure",
          "--tenant", "live", "--leases", "200", "--batch-size", "50", "--in-flight", "2",
          "--warmup", "0s", "--duration", "2s", "--output", "json");
      assertEquals(0, code, "stdout: " + out + "\nstderr: " + err);
      String json = out.toString();
      assertTrue(json.contains("\"op\":\"renew-slots\""), json);
      assertTrue(field(json, "renewed") > 0, json);
      assertEquals(0, field(json, "refused"), json);
      assertEquals(0, field(json, "failedBatches"), json);
      assertTrue(json.contains("\"refusals\":{}"), json);
      assertTrue(err.toString().contains("200 leases acquired over 1 limit(s) in "), err.toString());
    } finally {
      node.shutdown();
      node.awaitTermination(Duration.ofSeconds(30));
    }
  }

  private static long field(String json, String name) {
    Matcher m = Pattern.compile("\"" + name + "\":(\\d+)").matcher(json);
    assertTrue(m.find(), name + " in " + json);
    return Long.parseLong(m.group(1));
  }
}
