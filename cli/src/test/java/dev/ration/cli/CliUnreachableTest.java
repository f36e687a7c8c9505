package dev.ration.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/**
 * Goal: with the real client library and nobody listening, every admin command ends with one
 * clear line naming the servers it tried, and exit 3 (indeterminate: try again).
 */
class CliUnreachableTest {

  /** A loopback port that was free a moment ago, so a connect is refused. */
  private static String refusedAddress() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return "127.0.0.1:" + s.getLocalPort();
    }
  }

  private static CliHarness.Run run(String... args) {
    return CliHarness.capture(RationCli.commandLine(ClientGateway::open, (c, join) -> {
      throw new AssertionError("no server start expected");
    }), args);
  }

  @Test
  void readsAndMutationsReportTheUnreachableServers() throws IOException {
    String a = refusedAddress();
    String b = refusedAddress();
    String servers = a + "," + b;
    for (String[] cmd : new String[][] {
        {"limit", "list"},
        {"limit", "set", "--tenant", "t", "--resource", "r", "--rate", "1", "--burst", "1"},
        {"lease", "acquire", "--tenant", "t", "--resource", "r", "--holder", "h", "--rate", "1", "--burst", "1"},
        {"lease", "return", "--lease-id", "1", "--version", "1", "--client-id", "abc", "--request-id", "9"}}) {
      String[] args = java.util.stream.Stream.concat(java.util.Arrays.stream(cmd),
          java.util.stream.Stream.of("--servers", servers, "--timeout", "1s")).toArray(String[]::new);
      CliHarness.Run r = run(args);
      assertEquals(Exit.INDETERMINATE, r.exitCode(), String.join(" ", cmd) + "\n" + r);
      assertEquals("error: cannot reach any server of " + servers + " (connection refused)\n", r.err(), r.toString());
      assertEquals("", r.out());
    }
  }

  @Test
  void clusterStatusListsTheUnreachableServer() throws IOException {
    String a = refusedAddress();
    CliHarness.Run r = run("cluster", "status", "--servers", a, "--timeout", "1s");
    assertEquals(Exit.INDETERMINATE, r.exitCode(), r.toString());
    assertTrue(r.out().contains(a + "  UNREACHABLE") && r.out().contains("cannot reach " + a + " (connection refused)"), r.out());
    assertEquals("error: no server answered: cannot reach " + a + " (connection refused)\n", r.err());
  }

  @Test
  void aLongerTimeoutWaitsLongerToConnectAndSaysHowLongInWords() throws Exception {
    assertEquals(java.time.Duration.ofSeconds(3), ClientGateway.connectTimeout(java.time.Duration.ofSeconds(5)));
    assertEquals(java.time.Duration.ofSeconds(1), ClientGateway.connectTimeout(java.time.Duration.ofSeconds(1)));
    assertEquals(java.time.Duration.ofSeconds(15), ClientGateway.connectTimeout(java.time.Duration.ofSeconds(30)));

    // A server that accepts the connection and never answers HELLO, as a node still starting may.
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      String a = "127.0.0.1:" + silent.getLocalPort();
      long start = System.nanoTime();
      CliHarness.Run r = run("cluster", "status", "--servers", a, "--timeout", "9s", "--insecure");
      long tookMillis = (System.nanoTime() - start) / 1_000_000;
      assertEquals(Exit.INDETERMINATE, r.exitCode(), r.toString());
      assertTrue(r.out().contains("within 4.5s"), r.toString());
      assertTrue(!r.toString().contains("PT"), r.toString());
      assertTrue(tookMillis >= 4_000, "gave up connecting after " + tookMillis + " ms, before half of --timeout");
    }
  }
}
