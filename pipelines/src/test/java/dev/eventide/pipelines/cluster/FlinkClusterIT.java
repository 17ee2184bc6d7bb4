package dev.eventide.pipelines.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.eventide.generators.LateEventGenerator;
import dev.eventide.pipelines.aion.WindowReport;
import dev.eventide.pipelines.cli.EventideCli;
import dev.eventide.pipelines.linearroad.LinearRoadPipeline;
import dev.eventide.pipelines.output.SortedTextFile;
import dev.eventide.pipelines.stocks.StockMarketPipeline;
import dev.eventide.testing.cluster.FlinkSessionCluster;
import dev.eventide.testing.waits.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Submits the average pipeline (on TieredWindow) to a real Flink 1.19 session cluster on 127.0.0.1,
 * once with heap state and once with RocksDB state, through the shipped runner configs, and
 * compares each final per-window result with the DirectRunner's; likewise stock-market, linear-road
 * and ridesharing; the overlap comparison, which must agree; and a trend workload, compared with
 * the core's. Last, the fault test: the average job, checkpointed, loses the TaskManager that runs
 * it (killed by its process id), restarts from its last checkpoint on the other, and ends with the
 * DirectRunner's results. Runs after {@code package}, which builds the job jar and the cluster's
 * classpath.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FlinkClusterIT {
  private static final String[] WORKLOAD = {
    "--events=30000",
    "--events-per-window=3000",
    "--window=10s",
    "--allowed-lateness=30s",
    "--seed=7"
  };

  @TempDir static Path temp;
  private static FlinkSessionCluster cluster;
  private static List<String> directResult;

  @BeforeAll
  static void startClusterAndRunReference() throws Exception {
    Path classpath = Paths.get(System.getProperty("eventide.flinkCluster.classpath"));
    // two TaskManagers of two slots: after the fault test kills one, the other runs the job
    cluster = FlinkSessionCluster.startWithTaskManagers(classpath, temp.resolve("cluster"), 2, 2);
    // Beam's windowing on the DirectRunner: the same final results as TieredWindow
    // (AionPipelineTest), in a third of the time there.
    directResult = run("direct", "--runner=direct", "--native");
    assertThat(directResult.size(), greaterThan(5));
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** Runs the workload through the CLI and returns "window count sum average" per window. */
  private static List<String> run(String name, String... runnerArgs) {
    Path output = temp.resolve(name);
    String[] args = new String[2 + runnerArgs.length + WORKLOAD.length + 2];
    args[0] = "run";
    args[1] = "average";
    System.arraycopy(runnerArgs, 0, args, 2, runnerArgs.length);
    System.arraycopy(WORKLOAD, 0, args, 2 + runnerArgs.length, WORKLOAD.length);
    args[args.length - 2] = "--output";
    args[args.length - 1] = output.toString();
    int exit = EventideCli.execute(args);
    assertThat(
        name + " run failed\n" + (cluster == null ? "" : cluster.logTails()), exit, equalTo(0));
    return WindowReport.read(output).windows().stream()
        // TieredWindow marks a pane last only when late values are pending at the window's
        // expiry, which depends on timing: the final values are what every run shares.
        .map(w -> w.windowStart() + " " + w.count() + " " + w.sum() + " " + w.result())
        .collect(Collectors.toList());
  }

  /**
   * Runs {@code eventide run WORKLOAD ARGS --output DIR} with the given runner flags and returns
   * DIR; the run must succeed.
   */
  private static Path runWorkload(String name, List<String> workload, String... runnerArgs) {
    Path output = temp.resolve(name);
    List<String> args = new ArrayList<>(List.of("run"));
    args.addAll(workload);
    args.addAll(List.of(runnerArgs));
    args.add("--output=" + output);
    int exit = EventideCli.execute(args.toArray(String[]::new));
    assertThat(name + " run failed\n" + cluster.logTails(), exit, equalTo(0));
    return output;
  }

  /**
   * stock-market (RocksDB) and linear-road (heap): every output file (windows on TieredWindow,
   * final values joined with AggregateJoin) equals the DirectRunner's.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"stock-market rocksdb", "linear-road heap"})
  void dataflowsOnTheClusterGiveTheDirectRunnersResults(String workloadAndState) {
    String workload = workloadAndState.split(" ")[0];
    List<String> args =
        workload.equals("stock-market")
            ? List.of(workload, "--events=2000", "--events-per-window=400", "--seed=5")
            : List.of(workload, "--events=3000", "--events-per-window=1000", "--seed=5");
    List<String> outputs =
        workload.equals("stock-market") ? StockMarketPipeline.OUTPUTS : LinearRoadPipeline.OUTPUTS;
    Path direct = runWorkload(workload + "-direct", args, "--runner=direct");
    Path onCluster =
        runWorkload(
            workload + "-cluster",
            args,
            "--config=../runner-configs/flink-cluster-" + workloadAndState.split(" ")[1] + ".conf",
            "--flink-master=" + cluster.restAddress());
    for (String file : outputs) {
      List<String> expected = SortedTextFile.read(direct, file);
      assertThat(workload + " " + file + " has results", expected.size(), greaterThan(3));
      assertThat(workload + " " + file, SortedTextFile.read(onCluster, file), equalTo(expected));
    }
  }

  /**
   * ridesharing (TrendAggregate) with an allowed lateness longer than any delay, so no event is a
   * dead letter on either runner: the same final results on the cluster as on the DirectRunner.
   */
  @Test
  void ridesharingOnTheClusterGivesTheDirectRunnersResults() throws IOException {
    List<String> args = List.of("ridesharing", "--events=3000", "--allowed-lateness=5m");
    Path direct = runWorkload("ridesharing-direct", args, "--runner=direct");
    Path onCluster =
        runWorkload(
            "ridesharing-cluster",
            args,
            "--config=../runner-configs/flink-cluster-heap.conf",
            "--flink-master=" + cluster.restAddress());
    List<String> expected = Files.readAllLines(direct.resolve("results.jsonl"));
    assertThat(expected.size(), greaterThan(10));
    assertThat(Files.readAllLines(onCluster.resolve("results.jsonl")), equalTo(expected));
    assertThat(Files.readAllLines(onCluster.resolve("dead-letters.jsonl")), equalTo(List.of()));
  }

  /** A trend workload submitted with {@code eventide trends}: the in-process core's file. */
  @Test
  void trendsOnTheClusterGiveTheCoresResults() throws IOException {
    Path queries = Paths.get("../examples/trends/rides.queries");
    Path events = Paths.get("../examples/trends/rides.jsonl");
    Path core = temp.resolve("trends-core.jsonl");
    Path onCluster = temp.resolve("trends-cluster.jsonl");
    assertThat(
        EventideCli.execute(
            "trends", "--queries=" + queries, "--events=" + events, "--sort", "--out=" + core),
        equalTo(0));
    int exit =
        EventideCli.execute(
            "trends",
            "--queries=" + queries,
            "--events=" + events,
            "--out=" + onCluster,
            "--config=../runner-configs/flink-cluster-heap.conf",
            "--flink-master=" + cluster.restAddress());
    assertThat("trends run failed\n" + cluster.logTails(), exit, equalTo(0));
    List<String> expected = new ArrayList<>(Files.readAllLines(core));
    Collections.sort(expected);
    assertThat(Files.readAllLines(onCluster), equalTo(expected));
  }

  /** The overlap comparison on the cluster: the native and Aggregate-built operators agree. */
  @Test
  void overlapOnTheClusterAgrees() throws IOException {
    Path output = temp.resolve("overlap");
    int exit =
        EventideCli.execute(
            "run",
            "overlap",
            "--events=400",
            "--seed=3",
            "--config=../runner-configs/flink-cluster-rocksdb.conf",
            "--flink-master=" + cluster.restAddress(),
            "--output=" + output);
    assertThat("overlap run failed or disagreed\n" + cluster.logTails(), exit, equalTo(0));
    assertThat(Files.readAllLines(output.resolve("join-native.txt")).size(), greaterThan(10));
  }

  /**
   * A checkpointed job (TieredWindow with its block directory shared by both TaskManagers, RocksDB
   * state, a checkpoint every 500 ms, no purge delay) loses its TaskManager right after windows
   * were purged, whether or not a checkpoint completed since, and restarts more slowly than the
   * purge delay: Flink restores a checkpoint on the other TaskManager, in which those windows may
   * still name their blocks, and every window's final result is the DirectRunner's, because blocks
   * go only once a checkpoint in which their window is cleared has completed. No block is left at
   * the end. The job is a fault drill ({@code --fault-drill-at}): its stream stands still near its
   * end until the job restarts, so it cannot end before the kill however slow the machine. (When
   * purges deleted blocks as they cleared their window, this order lost blocks the restored job
   * read.)
   */
  @Test
  @Order(Integer.MAX_VALUE) // it leaves one TaskManager
  // 1.5 to 4 minutes; its own waits (each at most WAIT_LIMIT) fail first and say which
  @Timeout(value = 20, unit = TimeUnit.MINUTES)
  void jobRestartsFromItsCheckpointWhenItsTaskManagerDies() throws Exception {
    ExecutorService client = Executors.newSingleThreadExecutor();
    try {
      Future<List<String>> result =
          client.submit(
              () ->
                  run(
                      "fault",
                      "--config=../runner-configs/flink-cluster-checkpointed.conf",
                      "--flink-master=" + cluster.restAddress(),
                      "--purge-delay=0s",
                      // events arrive 3,000 per 10 s: the stream stands still at watermark 80 s
                      "--fault-drill-at=25000"));
      String job = awaitRunningJob(result);
      // The on-time pane of [60 s, 70 s) goes out at watermark 70 s, after the purge of [0, 10 s)
      // at 60 s (its end plus the allowed lateness of 30 s and the two windows of skew).
      long start = LateEventGenerator.builder().build().start().getMillis();
      String pane = (start + 60_000) + "-0-";
      Path panes = temp.resolve("fault").resolve("panes");
      await(
          "the on-time pane of [60 s, 70 s) (a file " + pane + "*)",
          result,
          () -> paneFiles(panes),
          files -> files.stream().anyMatch(f -> f.startsWith(pane)));
      Path store = temp.resolve("fault").resolve("blocks");
      assertThat("blocks in the store", blockFiles(store), greaterThan(0L));
      List<Integer> busy = cluster.busyTaskManagers();
      assertThat("TaskManagers running the job", busy.size(), equalTo(1));
      cluster.killTaskManager(busy.get(0));

      List<String> recovered;
      try {
        recovered = result.get(5, TimeUnit.MINUTES);
      } catch (TimeoutException e) {
        throw new AssertionError(
            "the job did not end within 5 minutes of the kill\n" + cluster.logTails(), e);
      }
      assertThat(recovered, equalTo(directResult));
      assertThat(
          "checkpoints restored, in " + cluster.get("/jobs/" + job + "/checkpoints"),
          checkpointCount(job, "restored"),
          greaterThan(0));
      // Every window has expired: once the last purge is done, no block is left.
      Await.until(
          "the count of blocks in " + store + " at 0",
          WAIT_LIMIT,
          () -> blockFiles(store),
          blocks -> blocks == 0,
          cluster::logTails);
    } finally {
      client.shutdownNow();
    }
  }

  /** How long a step of the fault test waits at most; each takes seconds on an idle machine. */
  private static final Duration WAIT_LIMIT = Duration.ofMinutes(3);

  /**
   * Waits, for up to {@link #WAIT_LIMIT}, until what {@code probe} reads is {@code reached}, while
   * the client's job still runs; fails with the last value read and the cluster's log tails.
   */
  private static <T> T await(
      String what, Future<?> client, Await.Probe<T> probe, Predicate<? super T> reached)
      throws Exception {
    return Await.until(
        what,
        WAIT_LIMIT,
        () -> {
          if (client.isDone()) {
            client.get(); // rethrows the client's failure
            throw new AssertionError("the job finished before " + what);
          }
          return probe.read();
        },
        reached,
        cluster::logTails);
  }

  /** Waits until the client's job runs; returns its id. */
  private static String awaitRunningJob(Future<?> client) throws Exception {
    String jobs =
        await(
            "a RUNNING job (the cluster's /jobs)",
            client,
            () -> String.valueOf(cluster.get("/jobs")),
            body -> runningJob(body) != null);
    return runningJob(jobs);
  }

  /** The id of a running job in the body of {@code /jobs}; null if none, or no answer yet. */
  private static String runningJob(String jobsBody) {
    if (!jobsBody.startsWith("{")) {
      return null;
    }
    try {
      for (JsonNode job : JSON.readTree(jobsBody).path("jobs")) {
        if (job.path("status").asText().equals("RUNNING")) {
          return job.path("id").asText();
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("unexpected /jobs answer: " + jobsBody, e);
    }
    return null;
  }

  /** The names of the files in {@code directory}, none while it does not exist. */
  private static List<String> paneFiles(Path directory) throws IOException {
    if (!Files.isDirectory(directory)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(directory)) {
      return files.map(f -> f.getFileName().toString()).sorted().collect(Collectors.toList());
    }
  }

  private static long blockFiles(Path store) throws IOException {
    if (!Files.isDirectory(store)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(store)) {
      return files.filter(f -> f.toString().endsWith(".blk")).count();
    }
  }

  private static int checkpointCount(String job, String which) throws IOException {
    String body = cluster.get("/jobs/" + job + "/checkpoints");
    return body == null ? 0 : JSON.readTree(body).path("counts").path(which).asInt();
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  @ParameterizedTest(name = "{0} state")
  @ValueSource(strings = {"heap", "rocksdb"})
  void clusterMatchesTheDirectRunner(String stateBackend) {
    List<String> clusterResult =
        run(
            stateBackend,
            "--config=../runner-configs/flink-cluster-" + stateBackend + ".conf",
            "--flink-master=" + cluster.restAddress());
    assertThat(clusterResult, equalTo(directResult));
  }
}
