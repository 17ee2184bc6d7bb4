package dev.eventide.testing.runners;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.TestTemplate;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a JUnit 5 test once per runner, each time with a fresh {@code TestPipeline} for that runner.
 * The same test code then covers the DirectRunner and embedded Flink:
 *
 * <pre>{@code
 * @OnEachRunner
 * void doublesEveryElement(TestPipeline p) {
 *   PCollection<Integer> out =
 *       p.apply(Create.of(1, 2))
 *           .apply(MapElements.into(TypeDescriptors.integers()).via((Integer x) -> 2 * x));
 *   PAssert.that(out).containsInAnyOrder(2, 4);
 *   p.run();
 * }
 * }</pre>
 *
 * <p>The pipeline comes from Beam's {@code TestPipelineExtension}, so the usual checks apply: a
 * test that builds a pipeline but never runs it fails. A test may also take a {@link TestRunner}
 * parameter to learn which runner it is on.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@TestTemplate
@ExtendWith(EachRunnerExtension.class)
public @interface OnEachRunner {
  /** The runners to run on, in order. */
  TestRunner[] value() default {TestRunner.DIRECT, TestRunner.FLINK};

  /**
   * Parallelism of embedded Flink; 0 (the default) takes the system property {@value
   * TestRunner#FLINK_PARALLELISM_PROPERTY}, or 1 when it is not set.
   */
  int flinkParallelism() default 0;
}
