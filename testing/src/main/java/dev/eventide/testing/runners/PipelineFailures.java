package dev.eventide.testing.runners;

import org.apache.beam.sdk.Pipeline;

/**
 * For tests of what a pipeline says when it fails.
 *
 * <pre>{@code
 * p.apply(Create.of(1)).apply(MapElements.into(TypeDescriptors.integers()).via((Integer x) -> x / 0));
 * String messages = PipelineFailures.messagesOfFailedRun(p);   // "... / by zero ..."
 * }</pre>
 */
public final class PipelineFailures {
  private PipelineFailures() {}

  /**
   * Runs {@code pipeline}, which must fail, and returns the messages of the whole cause chain, one
   * per line: runners wrap a failure differently, and the message a user needs is often innermost.
   *
   * @throws AssertionError if the pipeline succeeds
   */
  public static String messagesOfFailedRun(Pipeline pipeline) {
    Throwable failure;
    try {
      pipeline.run().waitUntilFinish();
      failure = null;
    } catch (Throwable t) {
      failure = t;
    }
    if (failure == null) {
      throw new AssertionError("the pipeline was expected to fail, but it succeeded");
    }
    StringBuilder messages = new StringBuilder();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      messages.append(t.getMessage()).append('\n');
    }
    return messages.toString();
  }
}
