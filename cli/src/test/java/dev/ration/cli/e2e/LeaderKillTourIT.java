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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Goal: the README tour's lines after `scripts/cluster.sh kill-leader` succeed every time, not
 * only when the election happens to be quick: twenty times in a row the leader is killed (kill
 * -9), the tour's next lines run as written (`cluster status`, then the read of the limit,
 * which must find the new leader within its deadline while the cluster elects one), and the
 * killed node is started again. 20 of 20 must pass.
 *
 * <p>Uses the default ports and run directory of `scripts/cluster.sh`, as the tour does, so it
 * refuses to run beside another cluster on those ports, and stops the cluster it started. It
 * takes three minutes, so it runs when asked: {@code scripts/leader-kills.sh}
 * ({@code -Dration.leaderKills=true}).
 */
@org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = "ration.leaderKills", matches = "true")
class LeaderKillTourIT {
  private static final int KILLS = 20;
  private static final String[] DEFAULT_CLIENT_PORTS = {"127.0.0.1:7101", "127.0.0.1:7102", "127.0.0.1:7103"};

  private final Path root = EndToEndIT.findRoot();

  @Test
  @Timeout(value = 15, unit = TimeUnit.MINUTES)
  void theLinesAfterALeaderKillPassTwentyTimesInARow() throws Exception {
    for (String a : DEFAULT_CLIENT_PORTS) {
      assertFalse(listening(a), "something already listens on " + a
          + ": stop the other cluster (scripts/cluster.sh stop) first");
    }
    List<String> tour = ReadmeTourIT.tour(Files.readString(root.resolve("README.md"), StandardCharsets.UTF_8));
    int kill = tour.indexOf(tour.stream().filter(l -> l.startsWith("scripts/cluster.sh kill-leader"))
        .findFirst().orElseThrow(() -> new AssertionError("the tour kills no leader: " + tour)));
    String setLimit = tour.stream().filter(l -> l.startsWith("bin/ration limit set")).findFirst()
        .orElseThrow(() -> new AssertionError("the tour sets no limit: " + tour));
    List<String> after = new ArrayList<>();
    for (String l : tour.subList(kill + 1, tour.size())) {
      if (l.startsWith("bin/ration lease acquire") || l.startsWith("scripts/")) {
        break; // the tour's refusal and stop: not part of "find the new leader"
      }
      after.add(l);
    }
    assertTrue(after.stream().anyMatch(l -> l.startsWith("bin/ration limit get")),
        "the tour reads the limit after the kill: " + after);
    Path logs = root.resolve("cli/target/leader-kill-tour");
    Files.createDirectories(logs);
    EndToEndIT.deleteTree(root.resolve("run/cluster-3"));
    int passed = 0;
    List<String> failures = new ArrayList<>();
    try {
      run("scripts/cluster.sh start", logs.resolve("start.out"), 0);
      run(setLimit, logs.resolve("limit-set.out"), 0);
      for (int i = 1; i <= KILLS; i++) {
        run("scripts/cluster.sh kill-leader", logs.resolve(i + "-kill.out"), 0);
        boolean ok = true;
        for (int j = 0; j < after.size(); j++) {
          Path out = logs.resolve(i + "-" + (j + 1) + ".out");
          int code = exit(after.get(j), out);
          if (code != 0) {
            ok = false;
            failures.add("kill " + i + ": " + after.get(j) + " exited " + code + ":\n"
                + Files.readString(out, StandardCharsets.UTF_8));
            break;
          }
        }
        if (ok) {
          passed++;
        }
        run("scripts/cluster.sh start", logs.resolve(i + "-restart.out"), 0);
      }
    } finally {
      new ProcessBuilder("scripts/cluster.sh", "stop").directory(root.toFile()).inheritIO().start()
          .waitFor(60, TimeUnit.SECONDS);
    }
    System.out.println(passed + " passed, " + (KILLS - passed) + " failed: the lines after a leader kill");
    assertEquals(KILLS, passed, String.join("\n", failures));
  }

  private void run(String command, Path out, int expected) throws Exception {
    int code = exit(command, out);
    if (code != expected) {
      fail(command + " exited " + code + ":\n" + Files.readString(out, StandardCharsets.UTF_8));
    }
  }

  private int exit(String command, Path out) throws Exception {
    ProcessBuilder pb = new ProcessBuilder("bash", "-c", command).directory(root.toFile())
        .redirectErrorStream(true).redirectOutput(out.toFile());
    pb.environment().put("RATION_START_TIMEOUT", "90");
    pb.environment().put("RATION_HELPER", "off");
    Process p = pb.start();
    if (!p.waitFor(150, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
      return -1;
    }
    return p.exitValue();
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
