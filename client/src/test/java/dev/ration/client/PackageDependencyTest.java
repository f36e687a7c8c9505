package dev.ration.client;

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
    slices().matching("dev.ration.client.(*)..").should().beFreeOfCycles().check(MAIN);
  }

  /**
   * The slices above leave out the root package itself, so a cycle through {@code RationClient}
   * would pass them; this closes that gap: the root depends on subpackages, never the reverse.
   */
  @Test
  void subpackagesDoNotDependOnTheRootPackage() {
    noClasses().that().resideInAPackage("dev.ration.client.*..")
        .should().dependOnClassesThat().resideInAPackage("dev.ration.client")
        .check(MAIN);
  }

  @Test
  void theClientSeesNeitherTheStateMachineNorTheServer() {
    noClasses().that().resideInAPackage("dev.ration.client..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.ration.statemachine..", "dev.ration.server..")
        .check(MAIN);
  }
}
