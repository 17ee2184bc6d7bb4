package dev.eventide.trends;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import dev.eventide.trends.query.fixtures.QueryReachingIntoEngines;
import org.junit.jupiter.api.Test;

/**
 * The core's shape, enforced: it knows nothing of Beam (so it runs and tests anywhere, and the Beam
 * adapter, {@code dev.eventide.trends.beam} in eventide-trend-aggregation, stays thin; the module's
 * pom bans Beam from its dependencies too), with the query model below the engines, and file
 * formats on top.
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

  private static final ArchRule LAYERS =
      layeredArchitecture()
          .consideringOnlyDependenciesInLayers()
          .layer("model")
          .definedBy("dev.eventide.trends")
          .layer("query")
          .definedBy("dev.eventide.trends.query..")
          .layer("engine")
          .definedBy("dev.eventide.trends.engine..", "dev.eventide.trends.internal.engine..")
          .layer("io")
          .definedBy("dev.eventide.trends.io..")
          .whereLayer("io")
          .mayNotBeAccessedByAnyLayer()
          .whereLayer("engine")
          .mayOnlyBeAccessedByLayers("io")
          .whereLayer("query")
          .mayOnlyBeAccessedByLayers("engine", "io");

  @Test
  void queriesAreBelowEnginesAndFileFormatsOnTop() {
    LAYERS.check(MAIN);
  }

  @Test
  void theLayerRuleRejectsAQueryClassThatUsesAnEngine() {
    JavaClasses withRogue =
        new ClassFileImporter()
            .importClasses(
                QueryReachingIntoEngines.class, dev.eventide.trends.engine.Engines.class);
    AssertionError e = assertThrows(AssertionError.class, () -> LAYERS.check(withRogue));
    assertTrue(e.getMessage().contains("QueryReachingIntoEngines"), e.getMessage());
  }
}
