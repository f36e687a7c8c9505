package dev.ration.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.protocol.Response;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The resident helper over a real loopback socket, with the launcher's own client code
 * (helper_call, cut out of bin/ration and run by bash): secrets, framing, exits, eligibility.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CliHelperTest {
  private static final String UTF8_TEXT = "grüße ✓ 日本語 — \\ \"quoted\" %s $HOME\n\ttab\r\n";

  @TempDir Path dir;
  private CliHelper helper;
  private CompletableFuture<String> serving;
  private Path state;
  private Path jar;

  private void start(Duration idle, Function<String[], CliHelper.Result> runner) throws IOException {
    Path helpers = Files.createDirectories(dir.resolve("helpers"));
    state = helpers.resolve("helper-0123.state");
    jar = Files.writeString(dir.resolve("ration-cli.jar"), "jar");
    helper = new CliHelper(state, jar, idle, Map.of(), runner);
    helper.publish();
    serving = CompletableFuture.supplyAsync(() -> {
      try {
        return helper.serve();
      } catch (IOException e) {
        throw new RuntimeException(e);
      }
    });
  }

  @AfterEach
  void stop() throws Exception {
    if (helper != null) {
      helper.stop("test over");
      serving.get(10, TimeUnit.SECONDS);
    }
  }

  private String[] stateFields() throws IOException {
    return Files.readString(state, StandardCharsets.US_ASCII).strip().split(" ");
  }

  @Test
  void stateFileIsPrivateAndNamesThisProcess() throws Exception {
    start(Duration.ofMinutes(1), a -> new CliHelper.Result(0, new byte[0], new byte[0]));
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(state)));
    String[] f = stateFields();
    assertEquals(4, f.length);
    assertEquals(helper.port(), Integer.parseInt(f[0]));
    assertEquals(64, f[1].length(), "256-bit secret in hex");
    assertEquals(64, f[2].length(), "256-bit secret in hex");
    assertEquals(ProcessHandle.current().pid(), Long.parseLong(f[3]));
  }

  @Test
  void aWrongSecretGetsNoAnswerAtAll() throws Exception {
    List<String> ran = new ArrayList<>();
    start(Duration.ofMinutes(1), a -> {
      ran.add(String.join(" ", a));
      return new CliHelper.Result(0, "ran\n".getBytes(StandardCharsets.UTF_8), new byte[0]);
    });
    String good = stateFields()[1];
    String wrong = (good.charAt(0) == 'a' ? "b" : "a") + good.substring(1);
    for (String secret : List.of(wrong, good.substring(0, 63), "", good + "0")) {
      try (Socket s = new Socket(InetAddress.getLoopbackAddress(), helper.port())) {
        s.setSoTimeout(5_000);
        OutputStream out = s.getOutputStream();
        out.write((secret + "\n2\ncluster\0status\0").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        assertEquals(-1, s.getInputStream().read(), "no byte for secret '" + secret + "'");
      }
    }
    assertEquals(List.of(), ran, "nothing ran");
  }

  /** Runs bin/ration's helper_call in bash against the helper; returns exit, stdout, stderr bytes. */
  private record BashRun(int exit, byte[] out, byte[] err) {}

  private BashRun callThroughLauncher(String... args) throws Exception {
    Path root = Path.of("").toAbsolutePath().getParent();
    String launcher = Files.readString(root.resolve("bin/ration"), StandardCharsets.UTF_8);
    String functions = function(launcher, "helper_wait") + function(launcher, "helper_call");
    List<String> command = new ArrayList<>(List.of("bash", "-c",
        "set -euo pipefail\n" + functions + "\nhelper_state=$1; shift\nhelper_call \"$@\"\nexit 99\n",
        "launcher", state.toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    // A UTF-8 locale, where bash counts characters, not bytes, unless told otherwise.
    pb.environment().put("LC_ALL", "C.UTF-8");
    Process p = pb.start();
    CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> readAll(p.getErrorStream()));
    byte[] out = p.getInputStream().readAllBytes();
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    return new BashRun(p.exitValue(), out, err.get());
  }

  private static String function(String script, String name) {
    Matcher m = Pattern.compile("(?ms)^" + name + "\\(\\) \\{\n.*?^\\}\n").matcher(script);
    assertTrue(m.find(), name + " not found in bin/ration");
    return m.group();
  }

  private static byte[] readAll(InputStream in) {
    try {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new RuntimeException(e);
    }
  }

  @Test
  void framingIsByteExactForNonAsciiLargeOutputAndEveryExitCode() throws Exception {
    byte[] big;
    {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      for (int i = 0; b.size() < 3_000_000; i++) {
        b.write((i + " " + UTF8_TEXT).getBytes(StandardCharsets.UTF_8));
      }
      big = b.toByteArray();
    }
    byte[] bigOut = big;
    start(Duration.ofMinutes(1), a -> {
      // `limit get --tenant T --resource CODE`: T picks the output, CODE the exit code.
      int code = Integer.parseInt(a[5]);
      byte[] out = a[3].equals("big") ? bigOut : (a[3] + " " + UTF8_TEXT).getBytes(StandardCharsets.UTF_8);
      byte[] err = code == 0 ? new byte[0] : ("error: " + UTF8_TEXT + "error: second line ✗\n").getBytes(StandardCharsets.UTF_8);
      return new CliHelper.Result(code, out, err);
    });
    for (int code : new int[] {0, 1, 2, 3}) {
      for (String tenant : List.of("ünïcödé-テナント", "big")) {
        BashRun r = callThroughLauncher("limit", "get", "--tenant", tenant, "--resource", String.valueOf(code));
        assertEquals(code, r.exit(), "exit code relayed; stderr: " + new String(r.err(), StandardCharsets.UTF_8));
        byte[] expectedOut = tenant.equals("big") ? big : (tenant + " " + UTF8_TEXT).getBytes(StandardCharsets.UTF_8);
        assertArrayEquals(expectedOut, r.out(), "stdout byte for byte");
        byte[] expectedErr = code == 0 ? new byte[0]
            : ("error: " + UTF8_TEXT + "error: second line ✗\n").getBytes(StandardCharsets.UTF_8);
        assertArrayEquals(expectedErr, r.err(), "stderr byte for byte: " + new String(r.err(), StandardCharsets.UTF_8));
      }
    }
  }

  @Test
  void anAnswerCutShortIsAnErrorNotAShorterOutput() throws Exception {
    // A helper that dies mid-answer: the header promises 1,000 bytes of stdout, 100 arrive.
    String clientSecret = "c".repeat(64);
    String helperSecret = "d".repeat(64);
    byte[] partial = "x".repeat(99).concat("\n").getBytes(StandardCharsets.US_ASCII);
    try (ServerSocket listener = fakeHelper(clientSecret, helperSecret)) {
      CompletableFuture<String> dying = CompletableFuture.supplyAsync(() -> {
        try (Socket s = listener.accept()) {
          InputStream in = s.getInputStream();
          String secret = readLine(in);
          OutputStream out = s.getOutputStream();
          out.write((helperSecret + "\n").getBytes(StandardCharsets.US_ASCII));
          int args = Integer.parseInt(readLine(in));
          for (int nuls = 0; nuls < args; ) {
            int b = in.read();
            if (b < 0) {
              throw new IOException("arguments cut short");
            }
            nuls += b == 0 ? 1 : 0;
          }
          out.write("0 1000 0\n".getBytes(StandardCharsets.US_ASCII));
          out.write(partial);
          out.flush();
          return secret;
        } catch (IOException e) {
          throw new RuntimeException(e);
        }
      });
      BashRun r = callThroughLauncher("cluster", "status");
      assertEquals(clientSecret, dying.get(10, TimeUnit.SECONDS), "the launcher sent its secret");
      String err = new String(r.err(), StandardCharsets.UTF_8);
      assertEquals(3, r.exit(), "indeterminate, not the promised exit code 0; stderr: " + err);
      assertArrayEquals(partial, r.out(), "what arrived is passed on, nothing invented");
      assertTrue(err.startsWith("error: the resident CLI helper (pid " + ProcessHandle.current().pid()
          + ") stopped mid-answer: 100 of 1000 bytes"), err);
    }
  }

  /**
   * A loopback listener standing in for a helper, named in a state file (this test's {@link
   * #state}) with the two secrets and this process's pid; what it does is the caller's.
   */
  private ServerSocket fakeHelper(String clientSecret, String helperSecret) throws IOException {
    state = Files.createDirectories(dir.resolve("helpers")).resolve("helper-fake.state");
    ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    Files.writeString(state, listener.getLocalPort() + " " + clientSecret + " " + helperSecret + " "
        + ProcessHandle.current().pid() + "\n", StandardCharsets.US_ASCII);
    return listener;
  }

  private static String readLine(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) {
        throw new IOException("line cut short: " + line);
      }
      line.append((char) b);
    }
    return line.toString();
  }

  @Test
  void answersAreThoseOfADirectRunOfTheSameCommandLine() throws Exception {
    CliHarness direct = new CliHarness();
    CliHarness viaHelper = new CliHarness();
    for (CliHarness h : List.of(direct, viaHelper)) {
      h.gateway.script = r -> {
        if (r instanceof dev.ration.protocol.Request.GetLimit g) {
          if (g.tenant().equals("none")) {
            return new Response.GetLimitReply(false, null);
          }
          if (g.tenant().equals("slow")) {
            throw new ClusterGateway.GatewayException(dev.ration.wire.ErrorCode.DEADLINE_EXCEEDED, false, 0,
                "DEADLINE_EXCEEDED: request 4 GET_LIMIT: timed out", null);
          }
          return new Response.GetLimitReply(true, CliHarness.limit(g.tenant(), g.resource(), 100, 200, 3));
        }
        throw new AssertionError("unexpected " + r);
      };
    }
    start(Duration.ofMinutes(1), a -> viaHelper.runBytes(a));
    List<List<String>> lines = List.of(
        List.of("limit", "get", "--tenant", "äcme", "--resource", "api"),
        List.of("limit", "get", "--tenant", "äcme", "--resource", "api", "--output", "json"),
        List.of("limit", "get", "--tenant", "none", "--resource", "api"),
        List.of("limit", "get", "--tenant", "slow", "--resource", "api"),
        List.of("limit", "get", "--tenant", "äcme"),
        List.of("limit", "get", "--tenant", "äcme", "--resource", "api", "--no-such-option"),
        List.of("--version"));
    List<Integer> codes = new ArrayList<>();
    for (List<String> line : lines) {
      CliHelper.Result d = direct.runBytes(line.toArray(new String[0]));
      BashRun h = callThroughLauncher(line.toArray(new String[0]));
      assertEquals(d.exitCode(), h.exit(), line.toString());
      assertEquals(new String(d.out(), StandardCharsets.UTF_8), new String(h.out(), StandardCharsets.UTF_8), line.toString());
      assertEquals(new String(d.err(), StandardCharsets.UTF_8), new String(h.err(), StandardCharsets.UTF_8), line.toString());
      codes.add(h.exit());
    }
    assertEquals(List.of(0, 0, 2, 3, 1, 1, 0), codes, "every exit code was exercised");
  }

  @Test
  void whatItDoesNotServeItClosesUnanswered() throws Exception {
    List<String> ran = new ArrayList<>();
    start(Duration.ofMinutes(1), a -> {
      ran.add(String.join(" ", a));
      return new CliHelper.Result(0, new byte[0], new byte[0]);
    });
    for (String[] args : List.of(new String[] {"limit", "set", "--tenant", "a"}, new String[] {"cert", "create-ca"},
        new String[] {"cluster", "status", "--ca", "ca.crt"}, new String[] {"cluster", "status", "--help"},
        new String[] {"@args.txt"}, new String[] {"server"})) {
      BashRun r = callThroughLauncher(args);
      assertEquals(99, r.exit(), "helper_call returned, to run directly: " + List.of(args));
      assertEquals(0, r.out().length);
    }
    assertEquals(List.of(), ran);
  }

  @Test
  void servesOnlyReadOnlyCommandsWithoutFilesOrRelativePaths() {
    Map<String, String> none = Map.of();
    assertTrue(CliHelper.served(new String[] {"cluster", "status"}, none));
    assertTrue(CliHelper.served(new String[] {"--servers", "h:1", "cluster", "status", "--output", "json"}, none));
    assertTrue(CliHelper.served(new String[] {"--version"}, none));
    assertTrue(CliHelper.served(new String[] {"audit", "--tenant", "acme"}, none));
    assertTrue(CliHelper.served(new String[] {"cluster", "status"}, Map.of("RATION_CERTS_DIR", "/abs/certs")));
    assertFalse(CliHelper.served(new String[] {"cluster", "status"}, Map.of("RATION_CERTS_DIR", "certs")));
    assertFalse(CliHelper.served(new String[] {"cluster", "status"}, Map.of("RATION_TOKEN_FILE", "t")));
    assertFalse(CliHelper.served(new String[] {"cluster", "status", "--cert=c.crt"}, none));
    assertFalse(CliHelper.served(new String[] {"cluster", "status", "--auth-token-file", "/t"}, none));
    assertFalse(CliHelper.served(new String[] {"limit", "set"}, none), "a mutation without its key");
    assertFalse(CliHelper.served(new String[] {"lease", "acquire"}, none));
    assertFalse(CliHelper.served(new String[] {"lease", "acquire", "--client-id", "ab"}, none));
    assertTrue(CliHelper.served(new String[] {"lease", "acquire", "--tenant", "t", "--client-id", "ab",
        "--request-id", "1"}, none));
    assertTrue(CliHelper.served(new String[] {"ttl", "put", "k", "v", "--client-id=ab", "--request-id=7"}, none));
    assertFalse(CliHelper.served(new String[] {"ttl", "put", "--", "k", "--client-id", "ab",
        "--request-id", "1"}, none), "after --, the options are operands");
    assertFalse(CliHelper.served(new String[] {"token", "create", "--client-id", "ab", "--request-id", "1"},
        none), "prints a secret: direct");
    assertFalse(CliHelper.served(new String[] {"cluster", "add", "--client-id", "ab", "--request-id", "1"},
        none));
    assertFalse(CliHelper.served(new String[] {"helper", "stop"}, none));
    assertFalse(CliHelper.served(new String[] {"snapshot", "save"}, none));
    assertFalse(CliHelper.served(new String[] {"--version", "--help"}, none));
    assertFalse(CliHelper.served(new String[] {}, none));
    assertEquals(Duration.ofSeconds(20), CliHelper.deadline(new String[] {"cluster", "status"}));
    assertEquals(Duration.ofMillis(10_500), CliHelper.deadline(new String[] {"cluster", "status", "--timeout=250ms"}));
  }

  @Test
  void theLauncherServesTheSameCommands() throws Exception {
    Path root = Path.of("").toAbsolutePath().getParent();
    String launcher = Files.readString(root.resolve("bin/ration"), StandardCharsets.UTF_8);
    Matcher block = Pattern.compile("(?s)served_commands=\\((.*?)\\)").matcher(launcher);
    assertTrue(block.find());
    List<String> listed = new ArrayList<>();
    Matcher word = Pattern.compile("\"([^\"]+)\"").matcher(block.group(1));
    while (word.find()) {
      listed.add(word.group(1));
    }
    assertEquals(CliHelper.SERVED, listed);
    assertEquals(CliHelper.MUTATIONS, quoted(launcher, "mutation_commands"));
  }

  private static List<String> quoted(String launcher, String array) {
    Matcher block = Pattern.compile("(?s)" + array + "=\\((.*?)\\)").matcher(launcher);
    assertTrue(block.find(), array);
    List<String> listed = new ArrayList<>();
    Matcher word = Pattern.compile("\"([^\"]+)\"").matcher(block.group(1));
    while (word.find()) {
      listed.add(word.group(1));
    }
    return listed;
  }

  @Test
  void aMutationIsRelayedWithAKeyFixedBeforeTheCallAndADirectRunResendsIt() throws Exception {
    // A helper that takes the command and dies before it answers: the launcher then runs the
    // command directly, with the arguments the helper was sent, key included.
    String clientSecret = "e".repeat(64);
    String helperSecret = "f".repeat(64);
    try (ServerSocket listener = fakeHelper(clientSecret, helperSecret)) {
      CompletableFuture<List<String>> taken = CompletableFuture.supplyAsync(() -> {
        try (Socket s = listener.accept()) {
          InputStream in = s.getInputStream();
          readLine(in);
          s.getOutputStream().write((helperSecret + "\n").getBytes(StandardCharsets.US_ASCII));
          s.getOutputStream().flush();
          int argc = Integer.parseInt(readLine(in));
          List<String> args = new ArrayList<>();
          StringBuilder a = new StringBuilder();
          while (args.size() < argc) {
            int b = in.read();
            if (b < 0) {
              throw new IOException("arguments cut short");
            }
            if (b == 0) {
              args.add(a.toString());
              a.setLength(0);
            } else {
              a.append((char) b);
            }
          }
          return args;
        } catch (IOException e) {
          throw new RuntimeException(e);
        }
      });
      BashRun r = relayThroughLauncher(List.of("limit", "set"), "limit", "set", "--tenant", "t",
          "--resource", "api", "--rate", "5");
      List<String> sent = taken.get(10, TimeUnit.SECONDS);
      assertEquals(99, r.exit(), "no answer: the launcher goes on to run it directly");
      assertEquals(List.of("limit", "set", "--tenant", "t", "--resource", "api", "--rate", "5"),
          sent.subList(0, 8));
      assertEquals("--client-id", sent.get(8));
      assertTrue(sent.get(9).matches("[0-9a-f]{32}"), sent.get(9));
      assertEquals(List.of("--request-id", "1"), sent.subList(10, 12));
      assertEquals(12, sent.size());
      assertEquals(String.join("\n", sent) + "\n", new String(r.err(), StandardCharsets.UTF_8),
          "the direct run gets the very arguments, key included");
    }
  }

  @Test
  void theLauncherFixesAKeyOnlyForMutationsThatHaveNone() throws Exception {
    state = dir.resolve("none.state"); // no helper: helper_call returns at once
    BashRun read = relayThroughLauncher(List.of("limit", "get"), "limit", "get", "--tenant", "t");
    assertEquals("limit\nget\n--tenant\nt\n", new String(read.err(), StandardCharsets.UTF_8));
    BashRun given = relayThroughLauncher(List.of("ttl", "put"), "ttl", "put", "k", "v", "--request-id=4",
        "--client-id=ab");
    assertEquals("ttl\nput\nk\nv\n--request-id=4\n--client-id=ab\n", new String(given.err(), StandardCharsets.UTF_8));
    BashRun dashes = relayThroughLauncher(List.of("ttl", "put"), "ttl", "put", "--", "k", "v");
    assertEquals("ttl\nput\n--\nk\nv\n", new String(dashes.err(), StandardCharsets.UTF_8));
    BashRun fresh1 = relayThroughLauncher(List.of("ttl", "put"), "ttl", "put", "k", "v");
    BashRun fresh2 = relayThroughLauncher(List.of("ttl", "put"), "ttl", "put", "k", "v");
    String e1 = new String(fresh1.err(), StandardCharsets.UTF_8);
    assertTrue(e1.matches("ttl\nput\nk\nv\n--client-id\n[0-9a-f]{32}\n--request-id\n1\n"), e1);
    assertFalse(e1.equals(new String(fresh2.err(), StandardCharsets.UTF_8)), "each call its own client id");
  }

  /**
   * bin/ration's relay path for a command of {@code shape}: helper_fix_key, the key appended,
   * helper_call; when helper_call returns (no answer) it prints the arguments the direct run
   * would get, one per line on stderr, and exits 99.
   */
  private BashRun relayThroughLauncher(List<String> shape, String... args) throws Exception {
    Path root = Path.of("").toAbsolutePath().getParent();
    String launcher = Files.readString(root.resolve("bin/ration"), StandardCharsets.UTF_8);
    Matcher array = Pattern.compile("(?ms)^mutation_commands=\\(.*?^\\)\n").matcher(launcher);
    assertTrue(array.find());
    String functions = array.group() + function(launcher, "helper_fix_key") + function(launcher, "helper_wait")
        + function(launcher, "helper_call");
    List<String> command = new ArrayList<>(List.of("bash", "-c",
        "set -euo pipefail\n" + functions + "\nhelper_state=$1; shift\nshape=(" + String.join(" ", shape)
            + ")\nrelay_key=\"\"\nhelper_fix_key \"$@\"\n"
            + "[[ -n \"$relay_key\" ]] && set -- \"$@\" --client-id \"$relay_key\" --request-id 1\n"
            + "helper_call \"$@\"\nprintf '%s\\n' \"$@\" >&2\nexit 99\n",
        "launcher", state.toString()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).start();
    CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> readAll(p.getErrorStream()));
    byte[] out = p.getInputStream().readAllBytes();
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    return new BashRun(p.exitValue(), out, err.get());
  }

  @Test
  void aCallPastItsDeadlineIsInterruptedAndClosedUnanswered() throws Exception {
    CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
    start(Duration.ofMinutes(1), a -> {
      try {
        // A command that never finishes on its own: only the helper's deadline ends it.
        new java.util.concurrent.CountDownLatch(1).await();
        interrupted.complete(false);
      } catch (InterruptedException e) {
        interrupted.complete(true);
      }
      return new CliHelper.Result(0, new byte[0], new byte[0]);
    });
    String[] f = stateFields();
    long start = System.nanoTime();
    // The caller is gone (as after Ctrl-C): it closes its side once the command is sent.
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), helper.port())) {
      s.getOutputStream().write((f[1] + "\n").getBytes(StandardCharsets.US_ASCII));
      assertEquals(f[2] + "\n", new String(s.getInputStream().readNBytes(65), StandardCharsets.US_ASCII));
      s.getOutputStream().write("4\ncluster\0status\0--timeout\0001ms\0".getBytes(StandardCharsets.US_ASCII));
      s.shutdownOutput();
    }
    // Its deadline: twice --timeout plus the 10 s margin.
    assertTrue(interrupted.get(30, TimeUnit.SECONDS), "the command's thread was interrupted");
    long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
    assertTrue(seconds >= 9 && seconds < 30, seconds + " s");
  }

  /**
   * Goal: another local user holding silent connections (more than the helper runs calls at
   * once) neither keeps the helper alive past its idle time nor holds the owner's call back by
   * more than the secret timeout: the owner is answered while they stay open, and the helper
   * still exits when idle.
   */
  @Test
  void silentConnectionsNeitherDelayCallsNorKeepItAlive() throws Exception {
    start(Duration.ofMillis(1_500), a -> new CliHelper.Result(0, "ran\n".getBytes(StandardCharsets.UTF_8), new byte[0]));
    List<Socket> silent = new ArrayList<>();
    try {
      for (int i = 0; i < 8; i++) {
        silent.add(new Socket(InetAddress.getLoopbackAddress(), helper.port()));
      }
      long t0 = System.nanoTime();
      BashRun r = callThroughLauncher("cluster", "status");
      long millis = (System.nanoTime() - t0) / 1_000_000;
      assertEquals(0, r.exit(), new String(r.err(), StandardCharsets.UTF_8));
      assertEquals("ran\n", new String(r.out(), StandardCharsets.UTF_8));
      assertTrue(millis < 3_000, "the owner's call took " + millis + " ms beside 8 silent connections");
      // Keep connecting without a secret, more often than the idle time: it must still exit
      // while the connections keep coming.
      long until = System.nanoTime() + Duration.ofSeconds(6).toNanos();
      while (!serving.isDone() && System.nanoTime() < until) {
        silent.add(new Socket(InetAddress.getLoopbackAddress(), helper.port()));
        try {
          serving.get(300, TimeUnit.MILLISECONDS); // the next stranger in 300 ms, unless it exited
        } catch (java.util.concurrent.TimeoutException stillServing) {
          // keep connecting
        }
      }
      assertTrue(serving.isDone(), "still serving 6 s after the last call: kept alive by strangers");
    } catch (java.net.ConnectException closed) {
      // It stopped listening: exited, as it should.
    } finally {
      for (Socket s : silent) {
        s.close();
      }
    }
    assertEquals("idle for 1 s", serving.get(10, TimeUnit.SECONDS));
    helper = null;
  }

  @Test
  void exitsWhenIdle() throws Exception {
    start(Duration.ofMillis(300), a -> new CliHelper.Result(0, new byte[0], new byte[0]));
    assertEquals("idle for 0 s", serving.get(10, TimeUnit.SECONDS));
    assertFalse(Files.exists(state), "its state file is removed");
    helper = null;
  }

  @Test
  void exitsAtOnceWhenItsJarChanges() throws Exception {
    start(Duration.ofMinutes(10), a -> new CliHelper.Result(0, new byte[0], new byte[0]));
    Files.setLastModifiedTime(jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() - 60_000));
    assertEquals("its jar changed", serving.get(10, TimeUnit.SECONDS));
    assertFalse(Files.exists(state), "its state file is removed");
    helper = null;
  }
}
