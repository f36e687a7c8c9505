package dev.ration.jepsen;

import static org.junit.jupiter.api.Assertions.assertEquals;

import clojure.java.api.Clojure;
import clojure.lang.IFn;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The membership nemesis against three real node processes on loopback (no root needed): a remove
 * that times out and commits once the fault heals is settled at the next add, and the cluster
 * ends whole ({@code ration.jepsen.uncertain-removal-it}). Needs the CLI's jar, as the matrix does.
 */
class UncertainRemovalTest {

  @Test
  void aRemoveThatCommitsAfterItsTimeOutIsSettled() {
    NodeBuild.assumeBuilt();
    IFn require = Clojure.var("clojure.core", "require");
    Object ns = Clojure.read("ration.jepsen.uncertain-removal-it");
    require.invoke(ns);
    Map<?, ?> summary = (Map<?, ?>) Clojure.var("clojure.test", "run-tests").invoke(ns);
    long tests = ((Number) summary.get(Clojure.read(":test"))).longValue();
    long bad = ((Number) summary.get(Clojure.read(":fail"))).longValue()
        + ((Number) summary.get(Clojure.read(":error"))).longValue();
    assertEquals(1, tests, "the scenario ran: " + summary);
    assertEquals(0, bad, "failures and errors: " + summary);
  }
}
