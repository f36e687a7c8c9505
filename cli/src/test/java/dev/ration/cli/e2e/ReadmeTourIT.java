package dev.ration.cli.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * README's five-minute tour, run as written: every command line of its shell block, from the
 * repository root, in order, against the local cluster it starts. A line ending in a comment
 * "exit code N" must exit N; every other line must exit 0. The tour's first line builds and
 * starts; the build is the one running this test, so only its part after {@code &&} runs.
 *
 * <p>Uses the default ports and run directory of `scripts/cluster.sh`, so it refuses to run
 * beside another cluster on those ports; the tour's own last line stops the cluster, and a
 * failed run stops it too.
 */
class ReadmeTourIT {
  private static final Pattern EXPECTED_EXIT = Pattern.compile("#.*exit code (\\d+)\\s*$");
  private static final String[] DEFAULT_CLIENT_PORTS = {"127.0.0.1:7101", "127.0.0.1:7102", "127.0.0.1:7103"};

  private final Path root = EndToEndIT.findRoot();

  /** The command lines of the README block under "## A five-minute tour". */
  static List<String> tour(String readme) {
    int heading = readme.indexOf("\n## A five-minute tour");
    assertTrue(heading >= 0, "README.md has no '## A five-minute tour' section");
    int open = readme.indexOf("```sh\n", heading);
    int close = readme.indexOf("\n```", open + 6);
    assertTrue(open > 0 && close > open, "the tour section has no ```sh block");
    List<String> lines = new ArrayList<>();
    for (String line : readme.substring(open + 6, close).split("\n")) {
      String t = line.strip();
      if (!t.isEmpty() && !t.startsWith("#")) {
        lines.add(t);
      }
    }
    return lines;
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void theTourRunsAsWritten() throws Exception {
    for (String a : DEFAULT_CLIENT_PORTS) {
      assertFalse(listening(a), "something already listens on " + a
          + ": stop the other cluster (scripts/cluster.sh stop) before running the README tour");
    }
    List<String> lines = tour(Files.readString(root.resolve("README.md"), StandardCharsets.UTF_8));
    assertTrue(lines.size() >= 10, "the tour has " + lines.size() + " commands: " + lines);
    assertTrue(lines.get(lines.size() - 1).startsWith("scripts/cluster.sh stop"),
        "the tour ends by stopping its cluster: " + lines);
    Path logs = root.resolve("cli/target/readme-tour");
    Files.createDirectories(logs);
    EndToEndIT.deleteTree(root.resolve("run/cluster-3"));
    boolean stopped = false;
    try {
      int n = 0;
      for (String line : lines) {
        String command = line;
        if (command.startsWith("mvn ")) {
          int and = command.indexOf("&&");
          if (and < 0) {
            continue;
          }
          command = command.substring(and + 2).strip();
        }
        Matcher m = EXPECTED_EXIT.matcher(line);
        int expected = m.find() ? Integer.parseInt(m.group(1)) : 0;
        Path out = logs.resolve(++n + ".out");
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", command).directory(root.toFile())
            .redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().put("RATION_START_TIMEOUT", "90");
        pb.environment().put("RATION_HELPER", "off");
        Process p = pb.start();
        if (!p.waitFor(150, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          p.waitFor(10, TimeUnit.SECONDS);
          fail("tour line " + n + " did not finish within 150 s: " + command);
        }
        String output = Files.readString(out, StandardCharsets.UTF_8);
        assertEquals(expected, p.exitValue(), "tour line " + n + ": " + command + "\n" + output);
        if (expected == 2) {
          assertTrue(output.contains("LIMIT_EXHAUSTED"), "a refusal names its outcome:\n" + output);
        }
        stopped = command.startsWith("scripts/cluster.sh stop");
      }
    } finally {
      if (!stopped) {
        new ProcessBuilder("scripts/cluster.sh", "stop").directory(root.toFile()).inheritIO().start()
            .waitFor(60, TimeUnit.SECONDS);
      }
    }
  }

  private static boolean listening(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1))), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
