package dev.eventide.pipelines.options;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.runners.flink.FlinkRunner;
import org.apache.beam.sdk.options.PipelineOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunnerSelectionTest {
  @TempDir Path temp;

  @Test
  void defaultsToEmbeddedStreamingFlink() throws Exception {
    FlinkPipelineOptions options =
        RunnerSelection.fromConfig(Optional.empty())
            .create(Optional.empty())
            .as(FlinkPipelineOptions.class);
    assertThat(options.getRunner(), equalTo(FlinkRunner.class));
    assertThat(options.getFlinkMaster(), equalTo("[local]"));
    assertThat(options.isStreaming(), equalTo(true));
  }

  @Test
  void flagsOverrideTheConfigFile() throws Exception {
    Path config =
        Files.writeString(
            temp.resolve("c.conf"),
            "# cluster\nrunner=FlinkRunner\nflinkMaster=10.0.0.1:8081\nparallelism=4\n"
                + "filesToStage=/tmp/job.jar\nstateBackend=rocksdb\n");
    FlinkPipelineOptions options =
        RunnerSelection.fromConfig(Optional.of(config))
            .flinkMaster("127.0.0.1:8081")
            .parallelism(2)
            .create(Optional.empty())
            .as(FlinkPipelineOptions.class);
    assertThat(options.getFlinkMaster(), equalTo("127.0.0.1:8081"));
    assertThat(options.getParallelism(), equalTo(2));
    assertThat(options.getStateBackend(), equalTo("rocksdb"));
    assertThat(options.getFilesToStage(), equalTo(java.util.List.of("/tmp/job.jar")));
  }

  @Test
  void directRunnerTakesParallelismAsTargetParallelism() throws Exception {
    PipelineOptions options =
        RunnerSelection.fromConfig(Optional.empty())
            .runner(RunnerSelection.Runner.DIRECT)
            .parallelism(3)
            .create(Optional.empty());
    assertThat(options.getRunner(), equalTo(DirectRunner.class));
    assertThat(options.as(DirectOptions.class).getTargetParallelism(), equalTo(3));
  }

  @Test
  void directRunnerChecksAreOffUnlessAConfigTurnsThemOn() throws Exception {
    DirectOptions fast =
        RunnerSelection.fromConfig(Optional.empty())
            .runner(RunnerSelection.Runner.DIRECT)
            .create(Optional.empty())
            .as(DirectOptions.class);
    assertThat(fast.isEnforceImmutability(), equalTo(false));
    assertThat(fast.isEnforceEncodability(), equalTo(false));
    Path config = temp.resolve("checked.conf");
    Files.writeString(config, "runner=DirectRunner\nenforceImmutability=true\n");
    DirectOptions checked =
        RunnerSelection.fromConfig(Optional.of(config))
            .create(Optional.empty())
            .as(DirectOptions.class);
    assertThat(checked.isEnforceImmutability(), equalTo(true));
    assertThat(checked.isEnforceEncodability(), equalTo(false));
  }

  @Test
  void remoteFlinkStagesTheJobJarOrSaysHowToBuildIt() throws Exception {
    Path jar = Files.createFile(temp.resolve("eventide-pipelines-1-job.jar"));
    FlinkPipelineOptions options =
        RunnerSelection.fromConfig(Optional.empty())
            .flinkMaster("127.0.0.1:8081")
            .create(Optional.of(jar))
            .as(FlinkPipelineOptions.class);
    assertThat(options.getFilesToStage(), equalTo(java.util.List.of(jar.toString())));

    RunnerSelection.InvalidOptionsException e =
        assertThrows(
            RunnerSelection.InvalidOptionsException.class,
            () ->
                RunnerSelection.fromConfig(Optional.empty())
                    .flinkMaster("127.0.0.1:8081")
                    .create(Optional.empty()));
    assertThat(e.getMessage(), containsString("the job jar must be staged"));
    assertThat(e.getMessage(), containsString("mvn -DskipTests package -pl pipelines -am"));
  }

  @Test
  void shippedRunnerConfigsAreValid() throws Exception {
    Path configs = Path.of("..", "runner-configs");
    try (var files = Files.list(configs)) {
      for (Path config :
          (Iterable<Path>) files.filter(f -> f.toString().endsWith(".conf"))::iterator) {
        PipelineOptions options =
            RunnerSelection.fromConfig(Optional.of(config))
                .create(Optional.of(temp.resolve("job.jar")));
        assertThat(
            config.toString(), options.getRunner().getSimpleName().isEmpty(), equalTo(false));
      }
    }
  }

  @Test
  void unreadableConfigsSayWhy() throws IOException {
    assertThat(
        assertThrows(
                RunnerSelection.InvalidOptionsException.class,
                () -> RunnerSelection.fromConfig(Optional.of(temp.resolve("missing.conf"))))
            .getMessage(),
        containsString("missing.conf does not exist"));
  }

  @Test
  void aFlinkMasterThatIsNotAnAddressNamesTheLineItCameFrom() throws IOException {
    Path config =
        Files.writeString(temp.resolve("c.conf"), "runner=FlinkRunner\nflinkMaster=local\n");
    RunnerSelection.InvalidOptionsException e =
        assertThrows(
            RunnerSelection.InvalidOptionsException.class,
            () -> RunnerSelection.fromConfig(Optional.of(config)).create(Optional.empty()));
    assertThat(e.getMessage(), containsString("for embedded Flink write [local]"));
    assertThat(e.getMessage(), containsString("(from " + config + ":2)"));
    assertThat(
        RunnerSelection.FlinkAddress.parse("http://[::1]:9081/"),
        equalTo(Optional.of(new RunnerSelection.FlinkAddress("[::1]", 9081))));
    assertThat(
        RunnerSelection.FlinkAddress.parse("flink.example"),
        equalTo(Optional.of(new RunnerSelection.FlinkAddress("flink.example", 8081))));
    assertThat(RunnerSelection.FlinkAddress.parse("[auto]"), equalTo(Optional.empty()));
    for (String bad : new String[] {"host:0", "host:", "a:b:c", "[nope]", "host:8081x"}) {
      assertThrows(
          IllegalArgumentException.class, () -> RunnerSelection.FlinkAddress.parse(bad), bad);
    }
  }
}
