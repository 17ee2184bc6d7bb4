package dev.eventide.pipelines.cli;

import dev.eventide.pipelines.options.RunnerSelection;
import picocli.CommandLine;

/** Reads {@code --runner}: direct or flink, or the config files' DirectRunner or FlinkRunner. */
final class RunnerConverter implements CommandLine.ITypeConverter<RunnerSelection.Runner> {
  @Override
  public RunnerSelection.Runner convert(String value) {
    try {
      return RunnerSelection.Runner.parse(value);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.TypeConversionException(e.getMessage());
    }
  }
}
