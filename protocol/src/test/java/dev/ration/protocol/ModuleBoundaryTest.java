package dev.ration.protocol;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Keeps the protocol below both of its users (docs/ARCHITECTURE.md): the client library and the
 * server depend on it, so it depends on neither of them, nor on the state machine. What it
 * builds on is the {@code wire} module, Netty and the JDK.
 */
class ModuleBoundaryTest {
  static final JavaClasses MAIN = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("dev.ration.protocol");

  static final ArchRule SEES_NO_USER = noClasses().that().resideInAPackage("dev.ration.protocol..")
      .should().dependOnClassesThat()
      .resideInAnyPackage("dev.ration.client..", "dev.ration.server..", "dev.ration.statemachine..");

  @Test
  void theProtocolSeesNeitherTheClientNorTheServerNorTheStateMachine() {
    assertHolds(SEES_NO_USER);
  }

  /** The rule sees the whole module: the codecs and the TLS file handling alike. */
  @Test
  void theRuleSeesTheModule() {
    assertTrue(MAIN.contain(MessageCodec.class), "MessageCodec imported");
    assertTrue(MAIN.contain(dev.ration.protocol.tls.PemFiles.class), "PemFiles imported");
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
