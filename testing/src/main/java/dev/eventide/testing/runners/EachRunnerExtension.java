package dev.eventide.testing.runners;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.apache.beam.sdk.testing.TestPipelineExtension;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestTemplateInvocationContext;
import org.junit.jupiter.api.extension.TestTemplateInvocationContextProvider;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Provides one invocation of an {@link OnEachRunner} test per runner. Each invocation registers
 * Beam's {@link TestPipelineExtension} with that runner's options, which injects the {@code
 * TestPipeline} and enforces that it is run.
 */
final class EachRunnerExtension implements TestTemplateInvocationContextProvider {

  @Override
  public boolean supportsTestTemplate(ExtensionContext context) {
    return AnnotationSupport.isAnnotated(context.getTestMethod(), OnEachRunner.class);
  }

  @Override
  public Stream<TestTemplateInvocationContext> provideTestTemplateInvocationContexts(
      ExtensionContext context) {
    OnEachRunner annotation =
        AnnotationSupport.findAnnotation(context.getRequiredTestMethod(), OnEachRunner.class)
            .orElseThrow();
    int parallelism =
        annotation.flinkParallelism() > 0
            ? annotation.flinkParallelism()
            : TestRunner.defaultFlinkParallelism();
    return Arrays.stream(annotation.value()).map(runner -> invocation(runner, parallelism));
  }

  private static TestTemplateInvocationContext invocation(TestRunner runner, int parallelism) {
    return new TestTemplateInvocationContext() {
      @Override
      public String getDisplayName(int invocationIndex) {
        return runner == TestRunner.FLINK ? "flink (parallelism " + parallelism + ")" : "direct";
      }

      @Override
      public List<Extension> getAdditionalExtensions() {
        return List.of(
            TestPipelineExtension.fromOptions(runner.options(parallelism)),
            new RunnerParameterResolver(runner));
      }
    };
  }

  /** Lets a test method take the {@link TestRunner} it runs on as a parameter. */
  private static final class RunnerParameterResolver implements ParameterResolver {
    private final TestRunner runner;

    RunnerParameterResolver(TestRunner runner) {
      this.runner = runner;
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
      return parameter.getParameter().getType() == TestRunner.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
      return runner;
    }
  }
}
