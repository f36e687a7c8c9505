package dev.ration.jepsen;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import clojure.java.api.Clojure;
import clojure.lang.IFn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The CI-sized matrix: lease × {partition-leader, pause-leader, kill, clock-bump, lossy}, 3 real
 * nodes, 30 s each (+ setup, heal, quiet period, final reads). As root with `ip netns` it runs
 * every cell in network namespaces; otherwise the loopback cells (kill, pause, clock) only.
 * Skipped (assumption) when the server jar is missing or -Dration.jepsen.skip=true. Fails on any
 * :valid? false (safety); :unknown (liveness only) is reported, not failed.
 */
class JepsenMatrixTest {
  @Test
  void ciMatrixIsValid() {
    assumeTrue(!Boolean.getBoolean("ration.jepsen.skip"), "skipped by -Dration.jepsen.skip=true");
    String root = System.getProperty("ration.root", "..");
    assumeTrue(Files.exists(Path.of(root, "server/target/ration-server.jar")),
        "server/target/ration-server.jar missing: build the server first");
    IFn require = Clojure.var("clojure.core", "require");
    require.invoke(Clojure.read("ration.jepsen.cli"));
    Map<?, ?> mode = (Map<?, ?>) Clojure.var("ration.jepsen.cli", "resolve-mode").invoke(Clojure.read(":auto"));
    Object opts = Clojure.var("clojure.core", "assoc").invoke(
        mode, Clojure.read(":time-limit"), Long.getLong("ration.jepsen.time-limit", 30L),
        Clojure.read(":seed"), 42L, Clojure.read(":store"), "target/jepsen-store");
    List<?> results = (List<?>) Clojure.var("ration.jepsen.cli", "run-matrix!")
        .invoke(((clojure.lang.IDeref) Clojure.var("ration.jepsen.cli", "ci-matrix")).deref(), opts);
    results.forEach(r -> System.out.println("jepsen cell: " + r));
    long ran = results.stream().filter(r -> !":skipped".equals(String.valueOf(((Map<?, ?>) r).get(Clojure.read(":valid?"))))).count();
    assumeTrue(ran > 0, "no cell could run in mode " + mode);
    for (Object r : results) {
      Object valid = ((Map<?, ?>) r).get(Clojure.read(":valid?"));
      assertFalse(Boolean.FALSE.equals(valid), "cell not valid: " + r);
    }
  }
}
