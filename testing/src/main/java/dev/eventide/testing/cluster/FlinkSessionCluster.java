package dev.eventide.testing.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Flink session cluster (one JobManager, one or more TaskManagers) started as local JVMs from a
 * classpath of Maven artifacts, the one {@code runner-configs/flink-cluster} writes to {@code
 * target/classpath.txt}; no Flink distribution is needed. Every address is 127.0.0.1 and every port
 * is free at start, so tests never clash with each other or with a cluster already running.
 *
 * <pre>{@code
 * try (FlinkSessionCluster cluster = FlinkSessionCluster.start(classpathFile, workDir, 2)) {
 *   FlinkPipelineOptions options = PipelineOptionsFactory.as(FlinkPipelineOptions.class);
 *   options.setRunner(FlinkRunner.class);
 *   options.setFlinkMaster(cluster.restAddress());   // 2 task slots there
 *   Pipeline.create(options).apply(Create.of(1, 2, 3)).getPipeline().run().waitUntilFinish();
 * }
 * }</pre>
 *
 * <p>Memory is sized the way Flink's own scripts do, with {@code BashJavaUtils}; logs go to {@code
 * workDir/log}, and the tail of both logs is part of the error if the cluster does not come up.
 * {@link #main} runs a cluster in the foreground for {@code bin/flink-cluster}.
 */
public final class FlinkSessionCluster implements AutoCloseable {
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(15);
  private static final String RESULT_PREFIX = "BASH_JAVA_UTILS_EXEC_RESULT:";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern TASK_MANAGERS = Pattern.compile("\"taskmanagers\"\\s*:\\s*(\\d+)");

  /** Java 17 module openings that Flink's own config.yaml passes to every Flink JVM. */
  private static final List<String> JAVA_17_OPENS =
      List.of(
          "--add-exports=java.base/sun.net.util=ALL-UNNAMED",
          "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
          "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
          "--add-opens=java.base/java.lang=ALL-UNNAMED",
          "--add-opens=java.base/java.net=ALL-UNNAMED",
          "--add-opens=java.base/java.io=ALL-UNNAMED",
          "--add-opens=java.base/java.nio=ALL-UNNAMED",
          "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
          "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
          "--add-opens=java.base/java.text=ALL-UNNAMED",
          "--add-opens=java.base/java.time=ALL-UNNAMED",
          "--add-opens=java.base/java.util=ALL-UNNAMED",
          "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
          "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
          "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED");

  private final Path workDir;
  private final int restPort;
  private final List<Process> processes = new ArrayList<>();

  /** TaskManager processes by their RPC port, which their resource ids start with. */
  private final Map<Integer, Process> taskManagers = new LinkedHashMap<>();

  private final Thread shutdownHook = new Thread(this::destroyAll, "flink-cluster-shutdown");

  private FlinkSessionCluster(Path workDir, int restPort) {
    this.workDir = workDir;
    this.restPort = restPort;
  }

  /**
   * Starts a JobManager and a TaskManager with {@code slots} task slots and waits until the
   * TaskManager has registered.
   *
   * @param classpathFile a file holding the cluster's classpath (path-separator separated)
   * @param workDir a directory for the configuration, logs and temporary files
   * @throws IllegalStateException if the cluster does not come up, with the tail of its logs
   */
  public static FlinkSessionCluster start(Path classpathFile, Path workDir, int slots)
      throws IOException, InterruptedException {
    return start(classpathFile, workDir, slots, freePort(), 1);
  }

  /** As {@link #start(Path, Path, int)} on the given REST port. */
  public static FlinkSessionCluster start(Path classpathFile, Path workDir, int slots, int restPort)
      throws IOException, InterruptedException {
    return start(classpathFile, workDir, slots, restPort, 1);
  }

  /**
   * As {@link #start(Path, Path, int)} with {@code taskManagers} TaskManagers, each its own JVM
   * with {@code slots} slots, for tests that kill one ({@link #killTaskManager}).
   */
  public static FlinkSessionCluster startWithTaskManagers(
      Path classpathFile, Path workDir, int slots, int taskManagers)
      throws IOException, InterruptedException {
    return start(classpathFile, workDir, slots, freePort(), taskManagers);
  }

  private static FlinkSessionCluster start(
      Path classpathFile, Path workDir, int slots, int restPort, int taskManagers)
      throws IOException, InterruptedException {
    if (!Files.isRegularFile(classpathFile)) {
      throw new IllegalStateException(
          "no Flink cluster classpath at "
              + classpathFile
              + "; build it with 'mvn -DskipTests package -pl runner-configs/flink-cluster'");
    }
    if (taskManagers < 1) {
      throw new IllegalArgumentException("taskManagers must be >= 1, but was " + taskManagers);
    }
    String classpath = Files.readString(classpathFile, StandardCharsets.UTF_8).strip();
    FlinkSessionCluster cluster = new FlinkSessionCluster(workDir, restPort);
    Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
    try {
      cluster.writeConfiguration(slots);
      cluster.launch(
          classpath,
          "GET_JM_RESOURCE_PARAMS",
          "jobmanager",
          "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
          List.of("--executionMode", "cluster"));
      for (int i = 0; i < taskManagers; i++) {
        int rpcPort = freePort();
        Process taskManager =
            cluster.launch(
                classpath,
                "GET_TM_RESOURCE_PARAMS",
                taskManagers == 1 ? "taskmanager" : "taskmanager-" + i,
                "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
                List.of("-D", "taskmanager.rpc.port=" + rpcPort));
        cluster.taskManagers.put(rpcPort, taskManager);
      }
      cluster.awaitTaskManagers(taskManagers);
      return cluster;
    } catch (IOException | InterruptedException | RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  /** The REST address to submit jobs to: {@code 127.0.0.1:port}. */
  public String restAddress() {
    return "127.0.0.1:" + restPort;
  }

  public int restPort() {
    return restPort;
  }

  private Path conf() {
    return workDir.resolve("conf");
  }

  private Path logs() {
    return workDir.resolve("log");
  }

  private void writeConfiguration(int slots) throws IOException {
    Files.createDirectories(conf());
    Files.createDirectories(logs());
    Path tmp = Files.createDirectories(workDir.resolve("tmp"));
    String config =
        String.join(
            "\n",
            "jobmanager.rpc.address: 127.0.0.1",
            "jobmanager.rpc.port: " + freePort(),
            "jobmanager.bind-host: 127.0.0.1",
            "jobmanager.memory.process.size: 1024m",
            "rest.address: 127.0.0.1",
            "rest.bind-address: 127.0.0.1",
            "rest.port: " + restPort,
            "blob.server.port: " + freePort(),
            "taskmanager.host: 127.0.0.1",
            "taskmanager.bind-host: 127.0.0.1",
            // a TaskManager that dies is noticed after two failed heartbeats, not a timeout
            "heartbeat.interval: 2000",
            "heartbeat.timeout: 30000",
            "taskmanager.numberOfTaskSlots: " + slots,
            "taskmanager.memory.process.size: 1728m",
            "cluster.registration.error-delay: 1000",
            "io.tmp.dirs: " + tmp.toAbsolutePath(),
            // RocksDB writes an info log per state instance into the log directory (25 MB files,
            // 4 old ones kept per instance, never removed for ended jobs): 4.7 GB after two
            // 30-minute soaks. Warnings and errors only.
            "state.backend.rocksdb.log.level: WARN_LEVEL",
            "");
    Files.writeString(conf().resolve("config.yaml"), config, StandardCharsets.UTF_8);
    String log4j =
        String.join(
            "\n",
            "rootLogger.level = INFO",
            "rootLogger.appenderRef.file.ref = file",
            "appender.file.name = file",
            "appender.file.type = File",
            "appender.file.fileName = ${sys:log.file}",
            "appender.file.layout.type = PatternLayout",
            "appender.file.layout.pattern = %d{HH:mm:ss,SSS} %-5p %c{1} - %m%n",
            "");
    Files.writeString(conf().resolve("log4j.properties"), log4j, StandardCharsets.UTF_8);
  }

  /** Sizes memory with Flink's BashJavaUtils, then starts one Flink process. */
  private Process launch(
      String classpath, String resourceCommand, String role, String mainClass, List<String> args)
      throws IOException, InterruptedException {
    List<String> resources = bashJavaUtils(classpath, resourceCommand);
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java));
    command.addAll(List.of(resources.get(0).split(" ")));
    command.addAll(JAVA_17_OPENS);
    command.add("-Dlog.file=" + logs().resolve(role + ".log").toAbsolutePath());
    command.add("-Dlog4j.configurationFile=" + conf().resolve("log4j.properties").toUri());
    command.add("-cp");
    command.add(classpath);
    command.add(mainClass);
    command.add("--configDir");
    command.add(conf().toAbsolutePath().toString());
    command.addAll(args);
    command.addAll(splitDynamicProperties(resources.get(1)));
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(logs().resolve(role + ".out").toFile())
            .start();
    processes.add(process);
    return process;
  }

  private List<String> bashJavaUtils(String classpath, String command)
      throws IOException, InterruptedException {
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    Path log = logs().resolve("bash-java-utils-" + command + ".out");
    Process p =
        new ProcessBuilder(
                java,
                "-cp",
                classpath,
                "org.apache.flink.runtime.util.bash.BashJavaUtils",
                command,
                "--configDir",
                conf().toAbsolutePath().toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    if (!p.waitFor(STARTUP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException(
          "Flink's BashJavaUtils "
              + command
              + " did not exit within "
              + STARTUP_TIMEOUT
              + "; its output so far is in "
              + log);
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    int exit = p.exitValue();
    List<String> results = new ArrayList<>();
    for (String line : output.split("\n")) {
      if (line.startsWith(RESULT_PREFIX)) {
        results.add(line.substring(RESULT_PREFIX.length()).strip());
      }
    }
    if (exit != 0 || results.size() < 2) {
      throw new IllegalStateException(
          "Flink's BashJavaUtils " + command + " failed (exit " + exit + "):\n" + output);
    }
    return results.subList(results.size() - 2, results.size());
  }

  /** "-D a=1 -D b=2" to ["-D", "a=1", "-D", "b=2"]. */
  private static List<String> splitDynamicProperties(String properties) {
    List<String> out = new ArrayList<>();
    for (String token : properties.split("\\s+")) {
      if (!token.isEmpty()) {
        out.add(token);
      }
    }
    return out;
  }

  private void awaitTaskManagers(int count) throws InterruptedException {
    long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      for (Process p : processes) {
        if (!p.isAlive()) {
          throw new IllegalStateException(
              "a Flink process exited with code "
                  + p.exitValue()
                  + " during startup\n"
                  + logTails());
        }
      }
      String overview = get("/overview");
      if (overview != null) {
        Matcher m = TASK_MANAGERS.matcher(overview);
        if (m.find() && Integer.parseInt(m.group(1)) >= count) {
          return;
        }
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException(
        "the Flink cluster did not register a TaskManager within "
            + STARTUP_TIMEOUT
            + "\n"
            + logTails());
  }

  /**
   * The body of a GET of the cluster's REST API at {@code path} (e.g. {@code /jobs}), or null while
   * the endpoint does not answer.
   */
  public String get(String path) {
    try {
      HttpURLConnection c =
          (HttpURLConnection) new URL("http://127.0.0.1:" + restPort + path).openConnection();
      c.setConnectTimeout(1000);
      c.setReadTimeout(2000);
      try (InputStream in = c.getInputStream()) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } finally {
        c.disconnect();
      }
    } catch (IOException notYet) {
      return null;
    }
  }

  /**
   * The indexes (in start order) of the TaskManagers that run a task now: those with a slot in use,
   * by the REST API's {@code /taskmanagers}.
   */
  public List<Integer> busyTaskManagers() {
    String body = get("/taskmanagers");
    List<Integer> busy = new ArrayList<>();
    if (body == null) {
      return busy;
    }
    try {
      for (JsonNode tm : JSON.readTree(body).path("taskmanagers")) {
        if (tm.path("freeSlots").asInt() < tm.path("slotsNumber").asInt()) {
          int index = 0;
          for (int rpcPort : taskManagers.keySet()) {
            if (tm.path("id").asText().startsWith("127.0.0.1:" + rpcPort + "-")) {
              busy.add(index);
            }
            index++;
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("unexpected /taskmanagers answer: " + body, e);
    }
    return busy;
  }

  /**
   * Kills the TaskManager JVM this cluster started as number {@code index} (start order), at once
   * and without shutdown (SIGKILL): a machine that fails.
   */
  public void killTaskManager(int index) throws InterruptedException {
    Process taskManager = new ArrayList<>(taskManagers.values()).get(index);
    if (!taskManager.destroyForcibly().waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      throw new IllegalStateException(
          "TaskManager "
              + index
              + " (pid "
              + taskManager.pid()
              + ") still runs "
              + STOP_TIMEOUT
              + " after SIGKILL");
    }
  }

  /** The last lines of every log, for errors. */
  public String logTails() {
    StringBuilder out = new StringBuilder();
    try (var files = Files.list(logs())) {
      for (Path log : (Iterable<Path>) files.sorted()::iterator) {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        out.append("--- ").append(log).append(" (last 30 lines)\n");
        lines
            .subList(Math.max(0, lines.size() - 30), lines.size())
            .forEach(line -> out.append(line).append('\n'));
      }
    } catch (IOException e) {
      out.append("(cannot read logs in ").append(logs()).append(": ").append(e).append(")\n");
    }
    return out.toString();
  }

  /** Stops every process: politely first, then forcibly. */
  @Override
  public void close() {
    destroyAll();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // The hook is running or has run; nothing left to do.
    }
  }

  private void destroyAll() {
    for (Process p : processes) {
      p.destroy();
    }
    for (Process p : processes) {
      try {
        if (!p.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
          // SIGKILL cannot be refused; bounded all the same, so a close never hangs a build.
          p.destroyForcibly().waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        p.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port on 127.0.0.1", e);
    }
  }

  /**
   * Runs a cluster in the foreground until interrupted: {@code FlinkSessionCluster CLASSPATH_FILE
   * WORK_DIR [REST_PORT] [SLOTS]} (defaults 8081 and 2).
   */
  public static void main(String[] args) throws Exception {
    if (args.length < 2 || args.length > 4) {
      System.err.println("usage: flink-cluster CLASSPATH_FILE WORK_DIR [REST_PORT] [SLOTS]");
      System.exit(2);
    }
    int port = args.length > 2 ? Integer.parseInt(args[2]) : 8081;
    int slots = args.length > 3 ? Integer.parseInt(args[3]) : 2;
    FlinkSessionCluster cluster = start(Paths.get(args[0]), Paths.get(args[1]), slots, port);
    System.err.printf(
        Locale.ROOT,
        "Flink session cluster up: web UI and REST at http://%s, logs in %s; Ctrl-C stops it.%n",
        cluster.restAddress(),
        cluster.logs());
    Thread.currentThread().join();
  }
}
