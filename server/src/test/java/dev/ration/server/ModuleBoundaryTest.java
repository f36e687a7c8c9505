package dev.ration.server;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Keeps the daemon off the client library (docs/ARCHITECTURE.md): the node, its endpoint,
 * consensus, security, observability, configuration, TLS and logging speak the protocol module's
 * frames and messages, never a type of {@code dev.ration.client}. The clients of a cluster, the
 * CLI and the load generator, are modules of their own; no package of this module is exempt.
 * (The client library is on this module's test class path only, for the tests; this keeps a
 * production class from reaching for it.)
 */
class ModuleBoundaryTest {
  static final JavaClasses MAIN = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("dev.ration.server");

  static final ArchRule DAEMON_WITHOUT_CLIENT = noClasses().that().resideInAPackage("dev.ration.server..")
      .should().dependOnClassesThat().resideInAPackage("dev.ration.client..");

  @Test
  void theDaemonDoesNotUseTheClientLibrary() {
    assertHolds(DAEMON_WITHOUT_CLIENT);
  }

  /** Every daemon package is among the classes the rule checks. */
  @Test
  void theRuleSeesTheDaemon() {
    for (String p : List.of("dev.ration.server", "dev.ration.server.endpoint", "dev.ration.server.consensus",
        "dev.ration.server.security", "dev.ration.server.observability", "dev.ration.server.config",
        "dev.ration.server.tls", "dev.ration.server.logging")) {
      assertTrue(MAIN.containPackage(p) && !MAIN.getPackage(p).getClasses().isEmpty(), p + " imported");
    }
  }

  /** The rule bites: a class of a daemon package holding a client is reported. */
  @Test
  void theRuleBites() {
    JavaClasses sample = new ClassFileImporter().importClasses(ClientHolder.class);
    assertTrue(DAEMON_WITHOUT_CLIENT.evaluate(sample).hasViolation());
  }

  /** Shaped like a daemon class that reaches for the client library, for {@link #theRuleBites}. */
  static final class ClientHolder {
    dev.ration.client.RationClient client;
  }

  /**
   * Asserts that {@code rule} holds over the production classes, and that there are classes to
   * hold it over: a rule checked against an empty import would pass without checking anything.
   */
  private static void assertHolds(ArchRule rule) {
    assertTrue(MAIN.size() > 100, "imported only " + MAIN.size() + " production classes");
    EvaluationResult result = rule.evaluate(MAIN);
    assertFalse(result.hasViolation(), () -> result.getFailureReport().toString());
  }
}
