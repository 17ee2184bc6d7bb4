package dev.eventide.tiering;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The module's layers: the API ({@code dev.eventide.tiering}: {@code TieredWindow}, {@code
 * WindowFunction}, {@code TieringMetrics}) and the internals ({@code internal.*}), among them the
 * Beam-free lateness core ({@code internal.lateness}: predictive cleanup and the staleness
 * planner), with no package cycles. The block store is a module of its own ({@code
 * eventide-blockstore}), which depends on nothing of this one.
 */
class ArchitectureTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.eventide.tiering");

  @Test
  void noPackageCycles() {
    slices().matching("dev.eventide.(**)").should().beFreeOfCycles().check(MAIN);
  }

  @Test
  void internalsDoNotReachBackIntoTheApi() {
    noClasses()
        .that()
        .resideInAPackage("dev.eventide.tiering.internal..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.eventide.tiering")
        .check(MAIN);
  }

  @Test
  void theLatenessCoreIsPlainJava() {
    noClasses()
        .that()
        .resideInAPackage("dev.eventide.tiering.internal.lateness..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.apache.beam..", "dev.eventide.tiering", "dev.eventide.tiering.internal.io..")
        .check(MAIN);
  }
}
