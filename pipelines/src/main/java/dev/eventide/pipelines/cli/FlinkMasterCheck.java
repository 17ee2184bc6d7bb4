package dev.eventide.pipelines.cli;

import dev.eventide.pipelines.options.RunnerSelection;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Optional;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.runners.flink.FlinkRunner;
import org.apache.beam.sdk.options.PipelineOptions;

/**
 * Before a job is submitted to a Flink session cluster, checks that its REST address answers: a
 * wrong or unreachable {@code --flink-master} is one usage error at once, not a minute of retries
 * and Flink's stack traces.
 */
final class FlinkMasterCheck {
  private static final int CONNECT_TIMEOUT_MILLIS = 5_000;

  private FlinkMasterCheck() {}

  /** Does nothing unless the options submit to a remote Flink master. */
  static void checkReachable(PipelineOptions options) {
    if (!FlinkRunner.class.equals(options.getRunner())) {
      return;
    }
    String master = options.as(FlinkPipelineOptions.class).getFlinkMaster();
    Optional<RunnerSelection.FlinkAddress> address;
    try {
      address = RunnerSelection.FlinkAddress.parse(master);
    } catch (IllegalArgumentException e) {
      throw new EventideCli.UsageException(e.getMessage());
    }
    if (address.isEmpty()) {
      return;
    }
    String host = address.get().host();
    String unbracketed = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
    try (Socket socket = new Socket()) {
      socket.connect(
          new InetSocketAddress(unbracketed, address.get().port()), CONNECT_TIMEOUT_MILLIS);
    } catch (UnknownHostException e) {
      throw new EventideCli.UsageException(
          "Flink master " + master + ": unknown host " + unbracketed);
    } catch (ConnectException e) {
      throw new EventideCli.UsageException(
          "Flink master "
              + master
              + ": nothing listens at "
              + address.get()
              + " ("
              + e.getMessage()
              + "); is the session cluster running, and is this its REST address (rest.port,"
              + " 8081 by default)?");
    } catch (SocketTimeoutException e) {
      throw new EventideCli.UsageException(
          "Flink master "
              + master
              + ": no answer from "
              + address.get()
              + " within "
              + CONNECT_TIMEOUT_MILLIS / 1000
              + " s");
    } catch (IOException | IllegalArgumentException e) {
      throw new EventideCli.UsageException(
          "Flink master "
              + master
              + ": cannot connect to "
              + address.get()
              + ": "
              + e.getMessage());
    }
  }
}
