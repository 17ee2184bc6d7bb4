package dev.eventide.transforms;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
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

  @Test
  void onlyAggregateAndLoopContainElementWiseCode() {
    noClasses()
        .that()
        .haveNameNotMatching("dev\\.eventide\\.transforms\\.(Aggregate|Loop)(\\$.*)?")
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
        .because("operators are built from Aggregate and Loop alone, the paper's claim")
        .check(MAIN);
  }
}
