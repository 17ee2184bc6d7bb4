package dev.eventide.pipelines.cli;

import dev.eventide.pipelines.bench.TransformsBenchmark;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.runners.flink.FlinkRunner;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code eventide bench}: benchmarks that run alternatives side by side and print ratios. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    versionProvider = EventideCli.Version.class,
    description = "Benchmarks that run the alternatives side by side in one run.",
    subcommands = {
      BenchCommand.Transforms.class,
      BenchTrendsCommand.class,
      BenchTieringCommand.class
    })
final class BenchCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(), "missing a benchmark, e.g. 'transforms'");
  }

  /** {@code eventide bench transforms}. */
  @Command(
      name = "transforms",
      mixinStandardHelpOptions = true,
      versionProvider = EventideCli.Version.class,
      description = {
        "Throughput of Filter, Map, FlatMap (fan-out 1, 8, 64) and Join as Beam's native"
            + " transform (D), from the Aggregate with Loop (A), Aggregate-only unrolled (U) and"
            + " with the multi-output Aggregate (A+), on the DirectRunner and embedded Flink.",
        "Prints events/s and the ratio to D; writes one PNG chart per runner."
      })
  static final class Transforms implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--flink-events",
        paramLabel = "N",
        defaultValue = "200000",
        description = "Events per run on embedded Flink (default: ${DEFAULT-VALUE}).")
    long flinkEvents;

    @Option(
        names = "--direct-events",
        paramLabel = "N",
        defaultValue = "10000",
        description = "Events per run on the DirectRunner (default: ${DEFAULT-VALUE}).")
    long directEvents;

    @Option(
        names = "--runners",
        split = ",",
        defaultValue = "flink,direct",
        paramLabel = "RUNNER",
        description = "Runners to measure: flink, direct (default: ${DEFAULT-VALUE}).")
    List<String> runners;

    @Option(
        names = "--operators",
        split = ",",
        paramLabel = "OP",
        description =
            "Operators to measure (default: all): Filter, Map, FlatMap-x1, FlatMap-x8,"
                + " FlatMap-x64, Join.")
    List<String> operators;

    @Option(
        names = "--chart-dir",
        paramLabel = "DIR",
        defaultValue = "eventide-output/bench",
        description = "Where the PNG charts go (default: ${DEFAULT-VALUE}).")
    Path chartDir;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      List<TransformsBenchmark.Result> all = new ArrayList<>();
      for (String runner : runners) {
        Function<String, PipelineOptions> options;
        long events;
        switch (runner) {
          case "flink":
            options = BenchCommand::flink;
            events = flinkEvents;
            break;
          case "direct":
            options = BenchCommand::direct;
            events = directEvents;
            break;
          default:
            throw new EventideCli.UsageException(
                "unknown runner '" + runner + "'; expected flink or direct");
        }
        if (events < 1) {
          throw new EventideCli.UsageException("events must be >= 1, but was " + events);
        }
        // Warm-up: load classes and JIT the runner once before measuring.
        TransformsBenchmark.run(
            runner, options, "Map", "D", TransformsBenchmark.variant("Map", "D"), 1000);
        List<TransformsBenchmark.Result> results = new ArrayList<>();
        for (String operator : TransformsBenchmark.operators()) {
          if (operators != null && !operators.contains(operator.replace(' ', '-'))) {
            continue;
          }
          for (String variant : TransformsBenchmark.variants()) {
            err.printf(Locale.ROOT, "bench: %s %s %s ...%n", runner, operator, variant);
            err.flush();
            results.add(
                TransformsBenchmark.run(
                    runner,
                    options,
                    operator,
                    variant,
                    TransformsBenchmark.variant(operator, variant),
                    events));
          }
        }
        Path chart = chartDir.resolve("transforms-" + runner + ".png");
        dev.eventide.pipelines.bench.Charts.throughput(chart, runner, results);
        err.printf(Locale.ROOT, "bench: chart %s%n", chart);
        all.addAll(results);
      }
      print(out, all);
      return 0;
    }

    private static void print(PrintWriter out, List<TransformsBenchmark.Result> results) {
      out.printf(
          Locale.ROOT,
          "%-7s %-12s %-4s %9s %11s %9s %12s %8s%n",
          "runner",
          "operator",
          "var",
          "events",
          "outputs",
          "seconds",
          "events/s",
          "vs D");
      for (TransformsBenchmark.Result r : results) {
        double d =
            results.stream()
                .filter(
                    x ->
                        x.runner().equals(r.runner())
                            && x.operator().equals(r.operator())
                            && x.variant().equals("D"))
                .mapToDouble(TransformsBenchmark.Result::eventsPerSecond)
                .findFirst()
                .orElse(Double.NaN);
        out.printf(
            Locale.ROOT,
            "%-7s %-12s %-4s %9d %11d %9.2f %12.0f %7.2fx%n",
            r.runner(),
            r.operator(),
            r.variant(),
            r.events(),
            r.outputs(),
            r.seconds(),
            r.eventsPerSecond(),
            d / r.eventsPerSecond());
      }
      out.flush();
    }
  }

  static PipelineOptions flink(String name) {
    FlinkPipelineOptions o = PipelineOptionsFactory.as(FlinkPipelineOptions.class);
    o.setRunner(FlinkRunner.class);
    o.setFlinkMaster("[local]");
    o.setStreaming(true);
    o.setParallelism(2);
    o.setJobName("bench-" + name.replaceAll("[^A-Za-z0-9+-]", ""));
    return o;
  }

  static PipelineOptions direct(String name) {
    DirectOptions o = PipelineOptionsFactory.as(DirectOptions.class);
    o.setRunner(DirectRunner.class);
    o.setTargetParallelism(2);
    o.setBlockOnRun(true);
    return o;
  }
}
