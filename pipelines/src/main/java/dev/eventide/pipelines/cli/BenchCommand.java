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
import picocli.CommandLine.Mixin;
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
      BenchTrendsBeamCommand.class,
      BenchTrendBurstsCommand.class,
      BenchTieringCommand.class,
      BenchStalenessCommand.class,
      BenchSoakCommand.class
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

    @Mixin ChartOptions charts;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      List<String> chosen = chosenOperators();
      for (String runner : runners) {
        if (!runner.equals("flink") && !runner.equals("direct")) {
          throw new EventideCli.UsageException(
              "--runners: unknown runner '" + runner + "'; expected flink or direct");
        }
      }
      if (runners.contains("flink") && flinkEvents < 1) {
        throw new EventideCli.UsageException(
            "--flink-events must be at least 1, but was " + flinkEvents);
      }
      if (runners.contains("direct") && directEvents < 1) {
        throw new EventideCli.UsageException(
            "--direct-events must be at least 1, but was " + directEvents);
      }
      charts.check();
      out.println(
          "vs D: how many times slower than Beam's native transform (D) on the same runner:"
              + " D's events/s divided by the row's.");
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
      out.flush();
      for (String runner : runners) {
        Function<String, PipelineOptions> options =
            runner.equals("flink") ? BenchCommand::flink : BenchCommand::direct;
        long events = runner.equals("flink") ? flinkEvents : directEvents;
        // Warm-up: load classes and JIT the runner once before measuring.
        TransformsBenchmark.run(
            runner, options, "Map", "D", TransformsBenchmark.variant("Map", "D"), 1000);
        List<TransformsBenchmark.Result> results = new ArrayList<>();
        for (String operator : chosen) {
          double native_ = Double.NaN;
          for (String variant : TransformsBenchmark.variants()) {
            err.printf(Locale.ROOT, "bench: %s %s %s ...%n", runner, operator, variant);
            err.flush();
            TransformsBenchmark.Result r =
                TransformsBenchmark.run(
                    runner,
                    options,
                    operator,
                    variant,
                    TransformsBenchmark.variant(operator, variant),
                    events);
            if (variant.equals("D")) {
              native_ = r.eventsPerSecond();
            }
            print(out, r, native_);
            results.add(r);
          }
        }
        Path chart = charts.chart("transforms-" + runner + ".png");
        dev.eventide.pipelines.bench.Charts.throughput(chart, runner, results);
        err.printf(Locale.ROOT, "bench: chart %s%n", chart);
      }
      return 0;
    }

    /** The operators of --operators in table order, matched without regard to case. */
    private List<String> chosenOperators() {
      if (operators == null) {
        return TransformsBenchmark.operators();
      }
      List<String> known = new ArrayList<>();
      for (String o : TransformsBenchmark.operators()) {
        known.add(o.replace(' ', '-'));
      }
      List<String> chosen = new ArrayList<>();
      for (String name : operators) {
        String match =
            known.stream().filter(k -> k.equalsIgnoreCase(name.strip())).findFirst().orElse(null);
        if (match == null) {
          throw new EventideCli.UsageException(
              "--operators: unknown operator '" + name + "'; expected " + String.join(", ", known));
        }
      }
      for (String o : TransformsBenchmark.operators()) {
        if (operators.stream().anyMatch(n -> n.strip().equalsIgnoreCase(o.replace(' ', '-')))) {
          chosen.add(o);
        }
      }
      return chosen;
    }

    /** One row, printed as soon as it is measured. */
    private static void print(PrintWriter out, TransformsBenchmark.Result r, double nativeRate) {
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
          nativeRate / r.eventsPerSecond());
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
