package dev.eventide.trends;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The module's shape, enforced: a core that knows nothing of Beam (so it runs and tests anywhere,
 * and a Beam adapter stays thin), with the query model below the engines and file formats on top.
 */
class ArchitectureTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.eventide.trends");

  @Test
  void theCoreDoesNotDependOnBeam() {
    noClasses()
        .that()
        .resideInAPackage("dev.eventide.trends..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("org.apache.beam..")
        .check(MAIN);
  }

  @Test
  void queriesAreBelowEnginesAndFileFormatsOnTop() {
    layeredArchitecture()
        .consideringOnlyDependenciesInLayers()
        .layer("model")
        .definedBy("dev.eventide.trends")
        .layer("query")
        .definedBy("dev.eventide.trends.query..")
        .layer("engine")
        .definedBy("dev.eventide.trends.engine..")
        .layer("io")
        .definedBy("dev.eventide.trends.io..")
        .whereLayer("io")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("engine")
        .mayOnlyBeAccessedByLayers("io")
        .whereLayer("query")
        .mayOnlyBeAccessedByLayers("engine", "io")
        .check(MAIN);
  }
}
