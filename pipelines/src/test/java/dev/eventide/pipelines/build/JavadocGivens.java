package dev.eventide.pipelines.build;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the javadoc examples assume, per source file: the imports beyond {@link DocsSnippetsTest}'s
 * and the user's inputs and types, as class members. Kept here so that the javadoc shows only the
 * code a user writes.
 */
final class JavadocGivens {
  private record Given(List<String> imports, String members, boolean exampleIsMembers) {}

  private static final Map<String, Given> GIVENS =
      Map.ofEntries(
          given("BlockStore.java", "import dev.eventide.blockstore.*;", "byte[] bytes;"),
          given("Jvm.java", "import dev.eventide.pipelines.bench.Jvm;", ""),
          given(
              "ForwardingBlockStore.java",
              "import dev.eventide.blockstore.*; import java.io.IOException;"
                  + " import java.util.concurrent.atomic.AtomicLong;",
              ""),
          given("LateEventSource.java", "", "Pipeline p;"),
          members("RecordCoder.java", "import dev.eventide.pipelines.RecordCoder;"),
          given("JobMetrics.java", "import dev.eventide.runtime.JobMetrics;", "Pipeline pipeline;"),
          given(
              "TieredWindow.java",
              "",
              "PCollection<KV<String, Double>> readings;"
                  + " static double median(Iterable<Double> values) { return 0; }"),
          given("PublicSurface.java", "import dev.eventide.testing.api.PublicSurface;", ""),
          given(
              "FlinkSessionCluster.java",
              "import dev.eventide.testing.cluster.FlinkSessionCluster;"
                  + " import org.apache.beam.runners.flink.*;"
                  + " import org.apache.beam.sdk.options.PipelineOptionsFactory;",
              "Path classpathFile; Path workDir;"),
          given(
              "Differential.java",
              "",
              "PCollection<Integer> input; Pipeline pipeline;"
                  + " SerializableFunction<Integer, Boolean> isEven;"),
          given(
              "EventTimeStream.java",
              "",
              "static Instant t(long millis) { return new Instant(millis); }"),
          given(
              "GatedReplay.java",
              "",
              "Pipeline p; static Instant t(long millis) { return new Instant(millis); }"),
          given(
              "Await.java",
              "import dev.eventide.testing.waits.Await;",
              "String job; int before; static int checkpointCount(String job) { return 0; }"),
          given(
              "Aggregate.java",
              "import java.io.Serializable;",
              "record Event(String user, long time) implements Serializable {}"
                  + " PCollection<Event> events; PCollection<Long> numbers;"),
          given("AggregateFilter.java", "", "PCollection<Integer> numbers;"),
          given("AggregateFlatMap.java", "", "PCollection<String> lines;"),
          given("AggregateMap.java", "", "PCollection<String> words;"),
          given(
              "AggregateJoin.java",
              "import java.io.Serializable;",
              "record Click(String adId, long time) implements Serializable {}"
                  + " record Impression(String adId, long time) implements Serializable {}"
                  + " PCollection<Click> clicks; PCollection<Impression> impressions;"),
          given("Sharing.java", "", "PCollection<Event> events; Workload workload;"),
          given(
              "SlidingWindows.java",
              "import dev.eventide.trends.internal.engine.SlidingWindows;",
              ""),
          given(
              "TrendAggregate.java",
              "import dev.eventide.trends.beam.DeadLetter;",
              "PCollection<Event> events; Workload workload;"),
          given("Seeds.java", "", "static void assertSameResults(long seed) {}"),
          members("OnEachRunner.java", "import org.apache.beam.sdk.testing.*;"),
          given("WindowSpec.java", "", ""),
          given("Loop.java", "", "PCollection<Long> numbers;"),
          given("Embed.java", "", "PCollection<String> lines;"),
          given("Unwrap.java", "", "PCollection<String> lines;"),
          given(
              "TransformMetrics.java",
              "import dev.eventide.runtime.JobMetrics;",
              "Pipeline pipeline;"),
          given(
              "tiering/DeadLetter.java",
              "import dev.eventide.tiering.DeadLetter;",
              "PCollection<KV<String, Double>> readings;"
                  + " WindowFunction<String, Double, Double> median;"),
          given(
              "beam/DeadLetter.java",
              "import dev.eventide.trends.beam.DeadLetter;",
              "PCollection<Event> events; Workload workload;"),
          given("TieringMetrics.java", "", "Pipeline pipeline;"),
          given(
              "RefusedChange.java",
              "",
              "PCollection<Event> events; Workload workload; PCollection<WorkloadChange> changes;"),
          given(
              "WorkloadVersion.java",
              "import dev.eventide.trends.internal.engine.WorkloadVersion;",
              "Workload workload; List<WorkloadChange> changesAt3600000;"
                  + " void log(WorkloadChange change, String reason) {}"),
          given("WindowFunction.java", "", ""),
          given("Event.java", "", ""),
          given("TrendResult.java", "", "Workload workload; List<Event> events;"),
          given("TrendEngine.java", "", "Workload workload;"),
          given("Engines.java", "", "String queries; List<Event> events;"),
          given("Workload.java", "", ""),
          given("WorkloadChange.java", "", "Workload workload;"),
          given("ChangeableTrendEngine.java", "", "Workload workload;"),
          given("WorkloadChangeJson.java", "import dev.eventide.trends.io.WorkloadChangeJson;", ""),
          given("BadChangeException.java", "import dev.eventide.trends.io.*;", "String text;"),
          given(
              "WorkloadVersions.java",
              "import dev.eventide.trends.io.*;",
              "Workload workload; List<WorkloadChange> changes;"),
          given("TrendMetrics.java", "", "Pipeline pipeline;"),
          given("BlockStores.java", "import dev.eventide.blockstore.*;", ""),
          given("BlockName.java", "import dev.eventide.blockstore.*;", "byte[] bytes;"),
          given("LocalFileBlockStore.java", "import dev.eventide.blockstore.*;", ""),
          given(
              "TieredBag.java",
              "import dev.eventide.blockstore.*; import dev.eventide.blockstore.internal.bag.*;",
              "ElementCodec<Long> codec; BlockStore store;"),
          given("InMemoryBlockStore.java", "import dev.eventide.blockstore.*;", ""),
          given(
              "GcsBlockStore.java",
              "import dev.eventide.blockstore.*; import com.google.cloud.storage.*;",
              ""),
          given("EventJson.java", "import dev.eventide.trends.io.EventJson;", ""),
          given(
              "ResultJson.java",
              "import dev.eventide.trends.io.ResultJson;",
              "Workload workload; List<Event> events;"),
          given("TextLines.java", "import dev.eventide.trends.io.TextLines;", ""),
          given("TrendEvents.java", "", "PCollection<Row> rows; Workload workload;"),
          given("EventCoder.java", "", "Pipeline p;"),
          given("Query.java", "", "String text;"),
          given("Aggregation.java", "", "Query query;"),
          given("Op.java", "import java.math.BigDecimal;", ""),
          given("Patterns.java", "", "Query query;"),
          given("Pattern.java", "", "Query query;"),
          given("Predicate.java", "", "Query query;"),
          given("TimeUnits.java", "import dev.eventide.trends.query.TimeUnits;", ""),
          given("QueryException.java", "", ""),
          given(
              "EventSchema.java",
              "import dev.eventide.trends.io.EventSchema;",
              "Workload workload; Event event;"),
          given(
              "TrendJob.java",
              "import dev.eventide.trends.io.*; import java.io.Writer;",
              "Workload workload;"),
          given("BadEventException.java", "import dev.eventide.trends.io.*;", "String text;"),
          given(
              "EventOrderException.java",
              "import dev.eventide.trends.io.*; import java.io.Writer;",
              "Workload workload; Writer results;"),
          given(
              "Embedded.java",
              "import java.io.Serializable;",
              "record Event(String user, long time) implements Serializable {}"
                  + " PCollection<Event> events; PCollection<String> lines;"),
          given(
              "CorruptBlockException.java",
              "import dev.eventide.blockstore.*;",
              "BlockStore store; BlockName name;"),
          given(
              "NoSuchBlockException.java",
              "import dev.eventide.blockstore.*;",
              "BlockStore store; BlockName name;"),
          given("LateEventGenerator.java", "", ""),
          given("LateEvent.java", "", ""),
          given("LatenessDistribution.java", "", ""),
          given("PipelineFailures.java", "", "Pipeline p;"),
          given("TestRunner.java", "", ""),
          given("LateEventStreams.java", "", "Pipeline p;"),
          members(
              "BlockStoreProvider.java",
              "import dev.eventide.blockstore.*; import java.io.IOException; import java.net.URI;"));

  private static Map.Entry<String, Given> given(String file, String imports, String members) {
    return Map.entry(file, new Given(importLines(imports), members, false));
  }

  /** The examples of {@code file} are class members (a method, a type), not a method's body. */
  private static Map.Entry<String, Given> members(String file, String imports) {
    return Map.entry(file, new Given(importLines(imports), "", true));
  }

  private static List<String> importLines(String imports) {
    List<String> lines = new ArrayList<>();
    for (String line : imports.split(";")) {
      if (!line.isBlank()) {
        lines.add(line.strip() + ";");
      }
    }
    return lines;
  }

  private JavadocGivens() {}

  /**
   * {@code snippet} with what the examples of the source at {@code path} assume: the entry whose
   * key ends the path ({@code Await.java}, or {@code tiering/DeadLetter.java} where two files share
   * a name).
   */
  static DocsSnippetsTest.Snippet complete(DocsSnippetsTest.Snippet snippet, String path) {
    Given given = null;
    for (Map.Entry<String, Given> e : GIVENS.entrySet()) {
      if (path.endsWith("/" + e.getKey())) {
        given = e.getValue();
      }
    }
    if (given == null) {
      return snippet;
    }
    List<String> imports = new ArrayList<>(snippet.imports());
    imports.addAll(given.imports());
    return new DocsSnippetsTest.Snippet(
        snippet.where(),
        imports,
        snippet.given() + given.members() + "\n",
        snippet.code(),
        snippet.members() || given.exampleIsMembers());
  }
}
