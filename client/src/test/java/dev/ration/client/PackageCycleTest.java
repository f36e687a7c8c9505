package dev.ration.client;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The client's packages depend one way: the limiter, quota and TTL libraries use the protocol,
 * and the protocol knows none of them, so it can be read and tested on its own.
 */
class PackageCycleTest {
  static final JavaClasses MAIN = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("dev.ration.client");

  @Test
  void packagesAreFreeOfCycles() {
    slices().matching("dev.ration.client.(*)..").should().beFreeOfCycles().check(MAIN);
  }
}
