package dev.ration.jepsen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import clojure.java.api.Clojure;
import clojure.lang.IFn;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The CI-sized matrix: lease × {partition-leader, pause-leader, kill, clock-bump, lossy,
 * membership-kill}, lease-stale-returns × pause-leader (holders' stale returns must free
 * nothing), pool × {partition-majority, partition-clients, kill, pause-leader},
 * ttl-near-cache × partition-leader (gets through near caches), quota-budget ×
 * {partition-clients, clock-bump}, quota-budget-soft × partition-clients (holders cut off
 * overdraw soft quotas) and pool-quota × partition-clients (pools on slot budgets of a scope
 * path: every level's cap, every attempt billed; cli/ci-matrix), 3 real
 * node JVMs in network namespaces, 25 s of workload per cell (+ setup, heal, a bounded wait for
 * recovery, a 5 s quiet period, final reads or the pools' drain): about 14–19 minutes on 2 cores. Runs on the test
 * thread, one cell at a time; the suite's own cleanup (namespaces, links, rules, node pids)
 * runs after every cell, and this class checks that nothing named rtn-* is left behind.
 *
 * <p>Needs root and working `ip netns` + iptables (CI runs it as root): otherwise it is skipped
 * by a JUnit assumption that says why. Also skipped when the server jar is missing or with
 * -Dration.jepsen.skip=true. Fails on any cell that is :valid? false (a safety violation, or
 * no client op succeeded after the final heal despite the recovery wait) or that could not
 * run at all; stores go to target/jepsen-store. -Dration.jepsen.time-limit=N resizes cells;
 * -Dration.jepsen.start-timeout=N bounds each cell's wait for a first leader (default 90 s).
 */
class JepsenMatrixTest {
  private static final Object VALID = Clojure.read(":valid?");

  @AfterEach
  void nothingLeftBehind() throws IOException, InterruptedException {
    if (!isRoot()) {
      return;
    }
    String netns = run("ip", "netns", "list");
    assertFalse(netns.contains("rtn-"), "network namespaces left behind: " + netns);
    String links = run("ip", "-o", "link", "show");
    assertFalse(links.contains("rtn-"), "links left behind: " + links);
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.MINUTES)
  void ciMatrixIsValid() {
    NodeBuild.assumeBuilt();
    assumeTrue(isRoot(), "the Jepsen matrix needs root (network namespaces, iptables); "
        + "run as root or use scripts/jepsen.sh --mode loopback for the reduced mode");
    IFn require = Clojure.var("clojure.core", "require");
    require.invoke(Clojure.read("ration.jepsen.cli"));
    boolean netns = Boolean.TRUE.equals(Clojure.var("ration.jepsen.net", "netns-available?").invoke());
    assumeTrue(netns, "network namespaces unavailable: `ip netns add` failed or ip/iptables missing "
        + "(apt-get install -y iproute2 iptables)");
    Map<?, ?> mode = (Map<?, ?>) Clojure.var("ration.jepsen.cli", "resolve-mode").invoke(Clojure.read(":netns"));
    Object opts = Clojure.var("clojure.core", "assoc").invoke(
        mode,
        Clojure.read(":time-limit"), Long.getLong("ration.jepsen.time-limit", 25L),
        Clojure.read(":quiet"), 5L,
        Clojure.read(":recovery-timeout"), 90L,
        Clojure.read(":start-timeout"), Long.getLong("ration.jepsen.start-timeout", 90L),
        Clojure.read(":seed"), 42L,
        Clojure.read(":store"), "target/jepsen-store");
    List<?> cells = (List<?>) ((clojure.lang.IDeref) Clojure.var("ration.jepsen.cli", "ci-matrix")).deref();
    List<?> results = (List<?>) Clojure.var("ration.jepsen.cli", "run-matrix!").invoke(cells, opts);
    results.forEach(r -> System.out.println("jepsen cell: " + r));
    assertEquals(cells.size(), results.size(), "one result per cell: " + results);
    List<String> bad = new ArrayList<>();
    for (Object r : results) {
      Object valid = ((Map<?, ?>) r).get(VALID);
      // :unknown only comes from a cell that threw before checking (run-matrix! catches it).
      if (!Boolean.TRUE.equals(valid)) {
        bad.add(String.valueOf(r));
      }
    }
    assertTrue(bad.isEmpty(), "cells not valid: " + bad);
  }

  private static boolean isRoot() {
    try {
      return "0".equals(run("id", "-u").trim());
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  private static String run(String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(10, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("timed out: " + String.join(" ", cmd));
    }
    return out;
  }
}
