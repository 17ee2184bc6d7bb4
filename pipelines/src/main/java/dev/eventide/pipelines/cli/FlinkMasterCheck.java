package dev.eventide.pipelines.cli;

import dev.eventide.pipelines.options.RunnerSelection;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;

/**
 * Before a job is submitted to a Flink session cluster, checks that its REST address answers: a
 * wrong or unreachable {@code --flink-master} is one usage error at once, not a minute of retries
 * and Flink's stack traces.
 */
final class FlinkMasterCheck {
  private static final int CONNECT_TIMEOUT_MILLIS = 5_000;

  private FlinkMasterCheck() {}

  /** Connects to the master's REST address, or fails with a usage error that says why not. */
  static void checkReachable(RunnerSelection.FlinkAddress address) {
    String host = address.host();
    String unbracketed = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
    String problem;
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(unbracketed, address.port()), CONNECT_TIMEOUT_MILLIS);
      return;
    } catch (UnknownHostException e) {
      problem = "unknown host " + unbracketed;
    } catch (ConnectException e) {
      problem =
          "nothing listens there ("
              + e.getMessage()
              + "); is the session cluster running, and is this its REST address (rest.port,"
              + " 8081 by default)?";
    } catch (SocketTimeoutException e) {
      problem = "no answer within " + CONNECT_TIMEOUT_MILLIS / 1000 + " s";
    } catch (IOException | IllegalArgumentException e) {
      problem = "cannot connect: " + e.getMessage();
    }
    throw new EventideCli.UsageException("Flink master " + address + ": " + problem);
  }
}
