package dev.eventide.transforms;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import dev.eventide.transforms.fixtures.RogueOperator;
import org.junit.jupiter.api.Test;

/**
 * The paper's claim, enforced on the code: every operator is composed from Aggregate, Loop, Flatten
 * and multiple consumers; only Aggregate and Loop (with their nested classes) contain element-wise
 * code.
 */
class ArchitectureTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.eventide.transforms");

  private static final ArchRule ONLY_AGGREGATE_AND_LOOP_ARE_ELEMENT_WISE =
      noClasses()
          .that()
          .haveNameNotMatching(
              "dev\\.eventide\\.transforms\\.primitives\\.(Aggregate|Loop)(\\$.*)?")
          .should()
          .dependOnClassesThat()
          .haveFullyQualifiedName("org.apache.beam.sdk.transforms.ParDo")
          .orShould()
          .dependOnClassesThat()
          .haveFullyQualifiedName("org.apache.beam.sdk.transforms.MapElements")
          .orShould()
          .dependOnClassesThat()
          .haveFullyQualifiedName("org.apache.beam.sdk.transforms.FlatMapElements")
          .orShould()
          .dependOnClassesThat()
          .areAssignableTo("org.apache.beam.sdk.transforms.DoFn")
          .because("operators are built from Aggregate and Loop alone, the paper's claim");

  @Test
  void onlyAggregateAndLoopContainElementWiseCode() {
    ONLY_AGGREGATE_AND_LOOP_ARE_ELEMENT_WISE.check(MAIN);
  }

  /**
   * The operators depend on the primitives and never the other way, so that the primitives are a
   * layer a user can compose alone.
   */
  @Test
  void noPackageCycles() {
    slices().matching("dev.eventide.(**)").should().beFreeOfCycles().check(MAIN);
  }

  @Test
  void thePrimitivesDoNotDependOnTheOperators() {
    noClasses()
        .that()
        .resideInAPackage("dev.eventide.transforms.primitives..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.eventide.transforms")
        .check(MAIN);
  }

  @Test
  void theRuleRejectsAnOperatorWithElementWiseCode() {
    JavaClasses rogue = new ClassFileImporter().importClasses(RogueOperator.class);
    AssertionError e =
        assertThrows(
            AssertionError.class, () -> ONLY_AGGREGATE_AND_LOOP_ARE_ELEMENT_WISE.check(rogue));
    assertThat(e.getMessage(), containsString("RogueOperator"));
    assertThat(e.getMessage(), containsString("MapElements"));
  }
}
