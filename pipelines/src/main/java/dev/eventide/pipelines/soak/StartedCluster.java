package dev.eventide.pipelines.soak;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A Flink session cluster the soak starts with the repository's {@code bin/flink-cluster} (one
 * JobManager and one TaskManager, each a JVM of its own) on a free local port, and stops when
 * closed: the script's JVM stops the cluster's processes on SIGTERM.
 */
public final class StartedCluster implements AutoCloseable {
  private static final Duration START_LIMIT = Duration.ofMinutes(3);

  private final Process process;
  private final int port;
  private final Path log;

  private StartedCluster(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /**
   * Starts {@code script} ({@code bin/flink-cluster}) with {@code slots} task slots, its output in
   * {@code log}, and waits until its REST API reports a TaskManager.
   *
   * @throws IOException if it does not come up within 3 minutes, with the log's path
   */
  public static StartedCluster start(Path script, int slots, Path log)
      throws IOException, InterruptedException {
    if (!Files.isExecutable(script)) {
      throw new IOException(script + " is not there or not executable");
    }
    int port = SoakRun.freePort();
    Files.createDirectories(log.toAbsolutePath().getParent());
    Process process =
        new ProcessBuilder(script.toString(), Integer.toString(port), Integer.toString(slots))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    StartedCluster cluster = new StartedCluster(process, port, log);
    // Also when the soak itself is stopped (Ctrl-C): the cluster must not outlive it.
    Runtime.getRuntime().addShutdownHook(new Thread(process::destroy, "soak-cluster-stop"));
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    long deadline = System.nanoTime() + START_LIMIT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException(
            "the Flink session cluster stopped at start (exit "
                + process.exitValue()
                + "); see "
                + log);
      }
      try {
        HttpResponse<String> overview =
            http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/overview"))
                    .timeout(Duration.ofSeconds(5))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (overview.statusCode() == 200 && !overview.body().contains("\"taskmanagers\":0")) {
          return cluster;
        }
      } catch (IOException notYet) {
        // Not listening yet.
      }
      Thread.sleep(1_000);
    }
    cluster.close();
    throw new IOException(
        "the Flink session cluster did not report a TaskManager within "
            + START_LIMIT
            + "; see "
            + log);
  }

  /** Where to submit jobs: {@code 127.0.0.1:PORT}. */
  public String restAddress() {
    return "127.0.0.1:" + port;
  }

  /** The cluster's output. */
  public Path log() {
    return log;
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
  }
}
