package dev.ration.client;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Keeps the client's packages layered. {@code RationClient} and the other classes of the root
 * package are the top: they wire the limiter, quotas and TTL entries to one connection and its
 * retries. The feature packages reach the network only through the {@code transport}
 * interfaces below them, so each can be driven by a fake and none needs the others. The
 * client is what services embed, so it must never pull in the state machine or the server.
 */
class PackageDependencyTest {
  static final JavaClasses MAIN = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("dev.ration.client");

  @Test
  void subpackagesAreFreeOfCycles() {
    assertHolds(slices().matching("dev.ration.client.(*)..").should().beFreeOfCycles());
  }

  /**
   * The slices above leave out the root package itself, so a cycle through {@code RationClient}
   * would pass them; this closes that gap: the root depends on subpackages, never the reverse.
   */
  @Test
  void subpackagesDoNotDependOnTheRootPackage() {
    assertHolds(noClasses().that().resideInAPackage("dev.ration.client.*..")
        .should().dependOnClassesThat().resideInAPackage("dev.ration.client")
        );
  }

  @Test
  void theClientSeesNeitherTheStateMachineNorTheServer() {
    assertHolds(noClasses().that().resideInAPackage("dev.ration.client..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.ration.statemachine..", "dev.ration.server..")
        );
  }

  /**
   * Asserts that {@code rule} holds over the production classes, and that there are classes to
   * hold it over: a rule checked against an empty import would pass without checking anything.
   */
  private static void assertHolds(ArchRule rule) {
    assertTrue(MAIN.size() > 20, "imported only " + MAIN.size() + " production classes");
    EvaluationResult result = rule.evaluate(MAIN);
    assertFalse(result.hasViolation(), () -> result.getFailureReport().toString());
  }
}
