package dev.ration.jepsen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import clojure.java.api.Clojure;
import clojure.lang.IFn;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Runs the suite's clojure.test namespaces (checkers on synthetic histories, generators, the
 * misbehaving holders) under Surefire, so their count and failures show up in the Maven build.
 * Single-threaded; no network, no processes.
 */
class ClojureTestsTest {
  private static final String[] NAMESPACES = {
    "ration.jepsen.checker-test", "ration.jepsen.generator-test", "ration.jepsen.misbehaving-holder-test",
    "ration.jepsen.ttl-checker-test", "ration.jepsen.reservation-checker-test",
    "ration.jepsen.limiter-holder-test", "ration.jepsen.misbehaving-ttl-client-test",
    "ration.jepsen.pool-checker-test", "ration.jepsen.membership-nemesis-test",
    "ration.jepsen.budget-checker-test"
  };

  @Test
  void clojureTestsPass() {
    IFn require = Clojure.var("clojure.core", "require");
    IFn symbol = Clojure.var("clojure.core", "symbol");
    IFn runTests = Clojure.var("clojure.test", "run-tests");
    Object[] syms = new Object[NAMESPACES.length];
    for (int i = 0; i < NAMESPACES.length; i++) {
      syms[i] = symbol.invoke(NAMESPACES[i]);
      require.invoke(syms[i]);
    }
    Map<?, ?> summary = (Map<?, ?>) runTests.applyTo(clojure.lang.ArraySeq.create(syms));
    long tests = ((Number) summary.get(Clojure.read(":test"))).longValue();
    long fail = ((Number) summary.get(Clojure.read(":fail"))).longValue();
    long error = ((Number) summary.get(Clojure.read(":error"))).longValue();
    assertTrue(tests > 0, "no clojure tests ran: " + summary);
    assertEquals(0, fail + error, "clojure.test failures/errors: " + summary);
  }
}
