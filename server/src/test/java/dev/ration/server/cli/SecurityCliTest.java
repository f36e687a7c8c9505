package dev.ration.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.server.RationNode;
import dev.ration.server.config.EndpointOptions;
import dev.ration.server.config.ServerConfig;
import dev.ration.server.consensus.ConsensusOptions;
import dev.ration.server.consensus.Peer;
import dev.ration.server.security.SecurityOptions;
import dev.ration.server.security.Tokens;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.SecurityCommand;
import dev.ration.statemachine.result.Result;
import dev.ration.wire.Bytes;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The security commands through the real CLI against a real node in security mode secure: an
 * administrator creates a token (printed once) and a grant, the new identity sees itself with
 * `security whoami` and is refused what it was not granted (exit 2, PERMISSION_DENIED naming
 * it), the audit log names who did what, and a revoked token no longer works.
 */
class SecurityCliTest {
  private static String[] run(String servers, String... args) {
    CommandLine cl = RationCli.commandLine(ClientGateway.FACTORY, RationNodeLauncher::start);
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

  private static ServerConfig config(Path dir) {
    Peer self = new Peer("n1", "127.0.0.1:" + QuotaEndToEndTest.freePort(),
        "127.0.0.1:" + QuotaEndToEndTest.freePort(), "127.0.0.1:" + QuotaEndToEndTest.freePort());
    ConsensusOptions consensus = new ConsensusOptions(self.id(),
        UUID.nameUUIDFromBytes("security-cli".getBytes()).toString(), List.of(self),
        dir.resolve(self.id()), Duration.ofMillis(300), Duration.ofMillis(600),
        Duration.ofSeconds(3), 10_000, 0, 1 << 20, 256, 64 << 10, Duration.ofMillis(2), 4,
        1_000, Duration.ofMillis(100), 100, StateOptions.defaults());
    EndpointOptions endpoint = new EndpointOptions(1 << 20, 64, 16, Duration.ofSeconds(5),
        Duration.ofSeconds(30), 1, 256);
    return new ServerConfig(consensus, self.clientAddress(), self.adminAddress(), endpoint,
        Duration.ofSeconds(2),
        new SecurityOptions(SecurityOptions.Mode.SECURE, List.of(), true, 1000));
  }

  private static String bootstrap(RationNode node) throws Exception {
    Tokens.Minted m = Tokens.mint();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        long nanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        assertInstanceOf(Result.SecurityChanged.class, node.consensus().submit(
            new RequestKey(1, 1, 1), new SecurityCommand.CreateToken(m.tokenId(), "root",
                new Bytes(m.salt()), new Bytes(m.hash()), 0, "test"), nanos).get(30, TimeUnit.SECONDS));
        assertInstanceOf(Result.SecurityChanged.class, node.consensus().submit(
            new RequestKey(1, 1, 2), new SecurityCommand.GrantRole("root", "admin", "*", "test"),
            nanos).get(30, TimeUnit.SECONDS));
        return m.text();
      } catch (ExecutionException notLeaderYet) {
        if (System.nanoTime() > deadline) {
          throw notLeaderYet;
        }
        Thread.sleep(100);
      }
    }
  }

  @Test
  void tokensAndGrantsThroughTheCli(@TempDir Path dir) throws Exception {
    ServerConfig config = config(dir);
    RationNode node = RationNode.start(config);
    try {
      String servers = config.clientAddress();
      String root = bootstrap(node);
      Path rootFile = dir.resolve("root.token");
      Files.writeString(rootFile, root + "\n");

      String[] created = run(servers, "token", "create", "--identity", "ops", "--expires", "30d",
          "--output", "json", "--auth-token-file", rootFile.toString());
      assertEquals("0", created[0], String.join("\n", created));
      Matcher m = Pattern.compile("\"token\":\"(rtn_[0-9a-f]{16}_[A-Za-z0-9_-]{43})\"").matcher(created[1]);
      assertTrue(m.find(), created[1]);
      String ops = m.group(1);

      String[] granted = run(servers, "role", "grant", "--identity", "ops", "--role", "operator",
          "--tenant", "acme", "--auth-token", root);
      assertEquals("0", granted[0], String.join("\n", granted));
      String[] typo = run(servers, "role", "grant", "--identity", "ops", "--role", "operater",
          "--tenant", "acme", "--auth-token", root);
      assertEquals(String.valueOf(Exit.FAILED), typo[0], String.join("\n", typo));
      assertTrue(typo[2].contains("unknown role 'operater'"), typo[2]);

      String[] me = run(servers, "security", "whoami", "--output", "json", "--auth-token", ops);
      assertEquals("0", me[0], String.join("\n", me));
      assertTrue(me[1].contains("\"identity\":\"ops\""), me[1]);
      assertTrue(me[1].contains("\"role\":\"operator\""), me[1]);

      String[] limit = run(servers, "limit", "set", "--tenant", "acme", "--resource", "api",
          "--rate", "10", "--burst", "10", "--auth-token", ops);
      assertEquals("0", limit[0], String.join("\n", limit));
      String[] other = run(servers, "limit", "set", "--tenant", "globex", "--resource", "api",
          "--rate", "10", "--burst", "10", "--auth-token", ops);
      assertEquals(String.valueOf(Exit.FAILED), other[0], String.join("\n", other));
      assertTrue(other[2].contains("PERMISSION_DENIED")
          && other[2].contains("identity ops may not SET_LIMIT on tenant globex"), other[2]);
      String[] noToken = run(servers, "limit", "get", "--tenant", "acme", "--resource", "api");
      assertEquals(String.valueOf(Exit.FAILED), noToken[0], String.join("\n", noToken));
      assertTrue(noToken[2].contains("UNAUTHENTICATED"), noToken[2]);

      String[] audit = run(servers, "security", "audit", "--output", "json", "--auth-token", root);
      assertEquals("0", audit[0], String.join("\n", audit));
      assertTrue(audit[1].contains("\"action\":\"limit.set\"") && audit[1].contains("\"actor\":\"ops\""),
          audit[1]);
      assertFalse(audit[1].contains(ops.substring(22)), "no secret in the audit log");

      String[] list = run(servers, "token", "list", "--output", "json", "--auth-token", root);
      assertEquals("0", list[0], String.join("\n", list));
      assertFalse(list[1].contains(ops.substring(22)), "no secret in the token list");
      String[] revoked = run(servers, "token", "revoke", ops, "--auth-token", root);
      assertEquals("0", revoked[0], String.join("\n", revoked));
      String[] after = run(servers, "security", "whoami", "--auth-token", ops);
      assertEquals(String.valueOf(Exit.FAILED), after[0], String.join("\n", after));
      assertTrue(after[2].contains("UNAUTHENTICATED"), after[2]);
    } finally {
      node.shutdown();
    }
  }
}
