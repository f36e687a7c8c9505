package dev.ration.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.wire.Outcome;
import dev.ration.protocol.TtlRequest;
import dev.ration.protocol.TtlResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Goal: the command line works the same for people and scripts: admin options before the
 * command, one duration syntax (with the old bare milliseconds still accepted for --ttl), and a
 * completion script that knows every command.
 */
class CliGlobalOptionsTest {
  private final CliHarness h = new CliHarness();

  @Test
  void adminOptionsBeforeTheCommandApplyToIt() {
    h.gateway.script = r -> new Response.Ttl(new TtlResponse.WriteReply(Outcome.SUCCESS, "", 1, 1, 5_000));
    CliHarness.Run r = h.run("--output", "json", "--servers", "10.0.0.1:7101,10.0.0.2:7101", "--timeout", "2s",
        "ttl", "put", "k", "v", "--ttl", "5s");
    assertEquals(0, r.exitCode(), r.toString());
    assertTrue(r.out().startsWith("{\"outcome\":\"SUCCESS\""), r.out());
    assertEquals(List.of("10.0.0.1:7101", "10.0.0.2:7101"), h.gateway.servers);
    assertEquals(Duration.ofSeconds(2), h.gateway.timeout);
  }

  @Test
  void anOptionAfterTheCommandWinsOverOneBefore() {
    h.gateway.script = r -> new Response.Ttl(new TtlResponse.WriteReply(Outcome.SUCCESS, "", 1, 1, 5_000));
    CliHarness.Run r = h.run("--output", "json", "ttl", "put", "k", "v", "--ttl", "5s", "--output", "table");
    assertEquals(0, r.exitCode(), r.toString());
    assertTrue(!r.out().startsWith("{"), "table output: " + r.out());
  }

  @Test
  void adminOptionsBeforeANonAdminCommandAreRefused() {
    CliHarness.Run r = h.run("--output", "json", "server", "--node", "n1");
    assertEquals(Exit.USAGE, r.exitCode(), r.toString());
    assertTrue(r.err().startsWith("error: --output applies to admin commands, not 'ration server'"), r.toString());
  }

  @Test
  void ttlTakesDurationsAndStillBareMilliseconds() {
    h.gateway.script = r -> new Response.Ttl(new TtlResponse.WriteReply(Outcome.SUCCESS, "", 1, 1, 5_000));
    assertEquals(0, h.run("ttl", "put", "a", "v", "--ttl", "90s").exitCode());
    assertEquals(0, h.run("ttl", "put", "b", "v", "--ttl", "1500").exitCode());
    assertEquals(0, h.run("ttl", "put", "c", "v", "--ttl", "-1").exitCode());
    assertEquals(0, h.run("ttl", "refresh", "a", "--ttl", "2m").exitCode());
    assertEquals(0, h.run("lock", "acquire", "l", "--owner", "me", "--ttl", "30s").exitCode());
    List<Long> ttls = h.gateway.requests.stream().map(q -> ((Request.Ttl) q).request()).map(t -> {
      if (t instanceof TtlRequest.Put p) {
        return p.ttlMillis();
      } else if (t instanceof TtlRequest.Refresh f) {
        return f.ttlMillis();
      } else if (t instanceof TtlRequest.CompareAndSet c) {
        return c.ttlMillis();
      }
      throw new AssertionError("unexpected " + t);
    }).toList();
    assertEquals(List.of(90_000L, 1_500L, -1L, 120_000L, 30_000L), ttls);

    CliHarness.Run bad = h.run("ttl", "put", "d", "v", "--ttl", "10sec");
    assertEquals(Exit.USAGE, bad.exitCode(), bad.toString());
    assertTrue(bad.err().startsWith("error: --ttl: '10sec' is not a duration"), bad.toString());
    CliHarness.Run never = h.run("ttl", "refresh", "a", "--ttl", "-1");
    assertEquals(Exit.USAGE, never.exitCode(), never.toString());
    assertTrue(never.err().startsWith("error: --ttl: -1 (no expiry) is not allowed here"), never.toString());
  }

  @Test
  void completionScriptKnowsTheCommands() {
    CliHarness.Run bash = h.run("completion");
    assertEquals(0, bash.exitCode(), bash.toString());
    for (String word : List.of("complete -F", "cluster", "lease", "ttl", "completion", "--output", "--servers")) {
      assertTrue(bash.out().contains(word), word + " missing from the completion script");
    }
    CliHarness.Run zsh = h.run("completion", "zsh");
    assertEquals(0, zsh.exitCode(), zsh.toString());
    assertTrue(zsh.out().startsWith("autoload -U +X compinit"), zsh.out().substring(0, 80));
  }

  /**
   * Tables show a ledger time as its instant, how far away it is and the ledger time itself;
   * JSON keeps the ledger milliseconds and adds the instant. Here the instant is computed from
   * the ledger time the answer was read at (10000), so the cluster's clock is not read.
   */
  @Test
  void tablesShowHumanTimesAndJsonBoth() {
    h.gateway.script = r -> new Response.Ttl(new TtlResponse.GetReply(true,
        new TtlResponse.EntryInfo("default", "k", "v".getBytes(java.nio.charset.StandardCharsets.UTF_8), 4, 608_000), 10_000));
    CliHarness.Run table = h.run("ttl", "get", "k");
    assertEquals(0, table.exitCode(), table.toString());
    assertTrue(table.out().contains("\nexpires at  2026-12-06T07:29:58.000Z (in 9m58s, ledger 608000)\n"), table.out());
    assertTrue(table.out().contains("\nread at     2026-12-06T07:20:00.000Z (now, ledger 10000)\n"), table.out());
    CliHarness.Run json = h.run("ttl", "get", "k", "--output", "json");
    assertTrue(json.out().contains("\"expiresAtMillis\":608000,\"expiresAt\":\"2026-12-06T07:29:58.000Z\"")
        && json.out().contains("\"readAtMillis\":10000,\"readAt\":\"2026-12-06T07:20:00.000Z\""), json.out());
    assertEquals(0, h.gateway.clockReads, "the answer's own read time is the clock");

    assertEquals("250ms", Tables.duration(250));
    assertEquals("1.5s", Tables.duration(1_500));
    assertEquals("10m", Tables.duration(600_000));
    assertEquals("1h2m3s", Tables.duration(3_723_000));
    assertEquals("3s ago", new LedgerClock(10_000, CliHarness.WALL_NOW).relative(7_000));
  }
}
