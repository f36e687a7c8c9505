package dev.ration.statemachine;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Keeps the state machine deterministic and standalone (docs/ARCHITECTURE.md): no Ratis, Netty, picocli,
 * threads, concurrency utilities, clocks or randomness in production classes.
 */
class ModuleBoundaryTest {
  static final JavaClasses MAIN = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("dev.ration.statemachine");

  @Test
  void noNetworkConsensusOrCliLibraries() {
    assertHolds(noClasses().that().resideInAPackage("dev.ration.statemachine..")
        .should().dependOnClassesThat()
        .resideInAnyPackage("org.apache.ratis..", "io.netty..", "picocli..", "java.net..")
        );
  }

  /** Only the store package touches RocksDB; the ledger reads it through LedgerStore. */
  @Test
  void onlyTheStoreUsesRocksDb() {
    assertHolds(noClasses().that().resideInAPackage("dev.ration.statemachine..")
        .and().resideOutsideOfPackage("dev.ration.statemachine.store..")
        .should().dependOnClassesThat().resideInAnyPackage("org.rocksdb..")
        );
  }

  @Test
  void noThreadsOrConcurrency() {
    assertHolds(noClasses().that().resideInAPackage("dev.ration.statemachine..")
        .should().dependOnClassesThat().resideInAnyPackage("java.util.concurrent..")
        .orShould().dependOnClassesThat().areAssignableTo(Thread.class)
        );
  }

  @Test
  void noClocks() {
    assertHolds(noClasses().that().resideInAPackage("dev.ration.statemachine..")
        .should().callMethod(System.class, "currentTimeMillis")
        .orShould().callMethod(System.class, "nanoTime")
        .orShould().callMethod(Instant.class, "now")
        .orShould().callMethod(LocalDateTime.class, "now")
        .orShould().dependOnClassesThat().areAssignableTo(Clock.class)
        );
  }

  @Test
  void noRandomness() {
    assertHolds(noClasses().that().resideInAPackage("dev.ration.statemachine..")
        .should().callMethod(UUID.class, "randomUUID")
        .orShould().dependOnClassesThat().areAssignableTo(Random.class)
        .orShould().dependOnClassesThat().haveFullyQualifiedName("java.util.SplittableRandom")
        );
  }

  /**
   * The packages depend one way: a ledger imports the commands, results and queries it
   * handles, never the reverse, so the codecs and the kernel can be read without the ledgers.
   */
  @Test
  void packagesAreFreeOfCycles() {
    assertHolds(slices().matching("dev.ration.statemachine.(*)..").should().beFreeOfCycles());
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
