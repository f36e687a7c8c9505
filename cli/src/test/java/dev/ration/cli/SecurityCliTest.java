package dev.ration.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.server.RationNode;
import dev.ration.server.config.ServerConfig;
import dev.ration.testkit.FreePorts;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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

  /**
   * A one-node secure configuration whose first administrator is the token `token bootstrap`
   * printed: the YAML holds only its salted hash.
   */
  private static ServerConfig config(Path dir, String bootstrapEntry) throws Exception {
    String yaml = "node:\n  id: n1\n  data-dir: " + dir.resolve("n1") + "\n"
        + "cluster:\n  peers:\n"
        + "    - {id: n1, raft: \"127.0.0.1:" + FreePorts.next() + "\", client: \"127.0.0.1:"
        + FreePorts.next() + "\", admin: \"127.0.0.1:" + FreePorts.next() + "\"}\n"
        + "security:\n  mode: secure\n  bootstrap-tokens: [\"" + bootstrapEntry + "\"]\n";
    return dev.ration.server.config.ConfigLoader.parse(yaml, "test.yaml", dir, java.util.Optional.empty());
  }

  private static String field(String json, String name) {
    Matcher m = Pattern.compile("\"" + name + "\":\"([^\"]*)\"").matcher(json);
    assertTrue(m.find(), name + " in " + json);
    return m.group(1);
  }

  @Test
  void tokensAndGrantsThroughTheCli(@TempDir Path dir) throws Exception {
    CommandLine offline = RationCli.commandLine(ClientGateway.FACTORY, RationNodeLauncher::start);
    StringWriter bootOut = new StringWriter();
    offline.setOut(new PrintWriter(bootOut, true));
    String[] boot = {String.valueOf(offline.execute("token", "bootstrap", "--identity", "root",
        "--output", "json")), bootOut.toString()};
    assertEquals("0", boot[0], String.join("\n", boot));
    String root = field(boot[1], "token");
    String entry = field(boot[1], "bootstrapToken");
    assertTrue(entry.startsWith("root@rtnh.") && !entry.contains(root.substring(22)), entry);
    ServerConfig config = config(dir, entry);
    RationNode node = RationNode.start(config);
    try {
      String servers = config.clientAddress();
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

      String[] rootMe = run(servers, "security", "whoami", "--output", "json", "--auth-token", root);
      assertEquals("0", rootMe[0], String.join("\n", rootMe));
      assertTrue(rootMe[1].contains("\"role\":\"admin\""), rootMe[1]);
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
