package dev.eventide.pipelines.soak;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a running Flink job through its cluster's REST API: the Beam counters its operators report
 * as Flink metrics, their output watermarks, and its last checkpoint's size. The Flink runner
 * registers a Beam counter {@code namespace/name} of step {@code S} as the operator metric {@code
 * S.namespace_name} ({@code FlinkMetricContainerBase#getFlinkMetricNameString}), and Flink's metric
 * names replace spaces and dots with underscores and cut operator names at 80 characters; metrics
 * appear once first updated. Embedded Flink serves the same API when its configuration gives it a
 * port ({@link SoakRun}).
 */
final class FlinkRest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String WATERMARK = "currentInputWatermark";
  // Below any real watermark (Beam's start of time is -2^63/1000 ms): Flink's Long.MIN_VALUE.
  private static final long NO_WATERMARK = -1_000_000_000_000_000_000L;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;
  private final String jobName;
  private String jobId;
  private List<String> vertices;

  /** Reads the job named {@code jobName} on the cluster whose REST API is at {@code hostPort}. */
  FlinkRest(String hostPort, String jobName) {
    this.base = "http://" + hostPort;
    this.jobName = jobName;
  }

  /** One reading: every operator metric the job reports, by id, summed (or least) over subtasks. */
  record Reading(Map<String, Double> sums, Map<String, Double> least, long checkpointBytes) {
    /** The sum of counter {@code namespace/name} over the operators of {@code step}. */
    long counter(String step, String namespace, String name) {
      String suffix = "." + flink(namespace) + "_" + name;
      double sum = 0;
      for (Map.Entry<String, Double> m : sums.entrySet()) {
        if (ofStep(m.getKey(), step) && m.getKey().endsWith(suffix)) {
          sum += m.getValue();
        }
      }
      return Math.round(sum);
    }

    /**
     * The least input watermark of the operators of {@code step} that have one; null before any has
     * (an operator reports Long.MIN_VALUE until its first watermark).
     */
    Long watermark(String step) {
      Long least = null;
      for (Map.Entry<String, Double> m : this.least.entrySet()) {
        if (ofStep(m.getKey(), step) && m.getKey().endsWith("." + WATERMARK)) {
          long w = Math.round(m.getValue());
          if (w > NO_WATERMARK) {
            least = least == null ? w : Math.min(least, w);
          }
        }
      }
      return least;
    }

    private static boolean ofStep(String id, String step) {
      String operator = id.startsWith("Source__") ? id.substring("Source__".length()) : id;
      String prefix = flink(step);
      return operator.startsWith(prefix + "/") || operator.startsWith(prefix + ".");
    }
  }

  /** Flink's form of a name in a metric id. */
  static String flink(String name) {
    return name.replace(' ', '_').replace('.', '_');
  }

  /**
   * Reads every metric of the job, or returns null while the job is not there yet.
   *
   * @throws IOException if the cluster does not answer
   */
  Reading read() throws IOException, InterruptedException {
    if (jobId == null && !findJob()) {
      return null;
    }
    Map<String, Double> sums = new HashMap<>();
    Map<String, Double> least = new HashMap<>();
    for (String vertex : vertices) {
      String path = "/jobs/" + jobId + "/vertices/" + vertex + "/subtasks/metrics";
      List<String> ids = new ArrayList<>();
      for (JsonNode m : get(path)) {
        String id = m.path("id").asText();
        if (id.contains(".eventide_") || id.endsWith("." + WATERMARK)) {
          ids.add(id);
        }
      }
      // A few ids per request keeps the URL short.
      for (int from = 0; from < ids.size(); from += 20) {
        String get = String.join(",", ids.subList(from, Math.min(ids.size(), from + 20)));
        for (JsonNode m :
            get(path + "?agg=sum,min&get=" + URLEncoder.encode(get, StandardCharsets.UTF_8))) {
          sums.put(m.path("id").asText(), m.path("sum").asDouble());
          least.put(m.path("id").asText(), m.path("min").asDouble());
        }
      }
    }
    JsonNode completed = get("/jobs/" + jobId + "/checkpoints").path("latest").path("completed");
    long checkpoint = completed.isObject() ? completed.path("state_size").asLong(-1) : -1;
    return new Reading(sums, least, checkpoint);
  }

  /** The job's id, once a reading has found the job; null before. */
  String jobId() {
    return jobId;
  }

  /** Asks the cluster to cancel the job. */
  void cancel() throws IOException, InterruptedException {
    if (jobId == null && !findJob()) {
      return;
    }
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/jobs/" + jobId + "?mode=cancel"))
                .method("PATCH", HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() / 100 != 2) {
      throw new IOException("cancelling job " + jobId + " answered " + response.statusCode());
    }
  }

  private boolean findJob() throws IOException, InterruptedException {
    for (JsonNode job : get("/jobs/overview").path("jobs")) {
      if (job.path("name").asText().equals(jobName)
          && job.path("state").asText().equals("RUNNING")) {
        String id = job.path("jid").asText();
        List<String> ids = new ArrayList<>();
        get("/jobs/" + id).path("vertices").forEach(v -> ids.add(v.path("id").asText()));
        vertices = ids;
        jobId = id;
        return true;
      }
    }
    return false;
  }

  private JsonNode get(String path) throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("GET " + path + " answered " + response.statusCode());
    }
    return JSON.readTree(response.body());
  }
}
