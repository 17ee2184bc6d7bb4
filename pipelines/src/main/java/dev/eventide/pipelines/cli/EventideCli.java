package dev.eventide.pipelines.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code eventide} command line. Exit codes: 0 success, 1 the job failed, 2 bad usage (an
 * unknown option, a bad value, a missing or invalid config file). Errors are one clear message on
 * stderr; set {@code EVENTIDE_DEBUG=1} to also see stack traces and Beam's and Flink's warnings.
 */
@Command(
    name = "eventide",
    mixinStandardHelpOptions = true,
    versionProvider = EventideCli.Version.class,
    description = "Event-time stream analytics on Apache Beam: runs Eventide's pipelines.",
    footer = {
      "",
      "Exit codes: 0 done, 1 the job failed, 2 bad usage (reported before any job starts).",
      DurationConverter.HELP,
      "Environment: EVENTIDE_DEBUG=1 shows stack traces and Beam's and Flink's warnings;"
          + " EVENTIDE_LOG_LEVEL=LEVEL (INFO, DEBUG, ...) chooses their log level; JAVA_OPTS"
          + " passes options to the JVM (e.g. -Xmx4g)."
    },
    subcommands = {
      RunCommand.class,
      TrendsCommand.class,
      BenchCommand.class,
      CommandLine.HelpCommand.class
    })
public final class EventideCli implements Runnable {
  static final int EXIT_FAILED = 1;
  static final int EXIT_USAGE = 2;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    chooseLogLevel();
    int exitCode = execute(args);
    quietFlinkShutdownHooks();
    System.exit(exitCode);
  }

  /**
   * After embedded Flink has run, one of Flink's JVM shutdown hooks can fail to load a Pekko class
   * at exit ({@code NoClassDefFoundError:
   * org/apache/pekko/actor/CoordinatedShutdown$JvmExitReason$}, seen on a loaded machine: the class
   * loader of Flink's RPC system is closed by then). The job's work is done and the JVM is exiting,
   * so that error stays off the terminal unless {@code EVENTIDE_DEBUG} is set; errors of any other
   * thread are printed as the JVM prints them.
   */
  private static void quietFlinkShutdownHooks() {
    boolean debug = System.getenv("EVENTIDE_DEBUG") != null;
    Thread.setDefaultUncaughtExceptionHandler(
        (thread, error) -> {
          if (debug || !thread.getName().startsWith("flink-shutdown-hook")) {
            System.err.print("Exception in thread \"" + thread.getName() + "\" ");
            error.printStackTrace(System.err);
          }
        });
  }

  /**
   * Beam's and Flink's logs stay off unless asked for ({@code EVENTIDE_LOG_LEVEL}, or warnings with
   * {@code EVENTIDE_DEBUG}): set before the first logger exists, which reads it.
   */
  private static void chooseLogLevel() {
    String level = System.getenv("EVENTIDE_LOG_LEVEL");
    if (level == null && System.getenv("EVENTIDE_DEBUG") != null) {
      level = "WARN";
    }
    if (level != null && System.getProperty("eventide.log.level") == null) {
      System.setProperty("eventide.log.level", level);
    }
  }

  /** Runs the command line and returns its exit code. */
  public static int execute(String... args) {
    return commandLine().execute(args);
  }

  static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new EventideCli());
    cli.setCaseInsensitiveEnumValuesAllowed(true);
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          PrintWriter err = commandLine.getErr();
          if (e instanceof UsageException) {
            String command = commandLine.getCommandSpec().qualifiedName();
            err.println(command + ": " + e.getMessage());
            err.println("Try '" + command + " --help'.");
            return EXIT_USAGE;
          }
          err.println(commandLine.getCommandSpec().qualifiedName() + ": " + describe(e));
          if (System.getenv("EVENTIDE_DEBUG") != null) {
            e.printStackTrace(err);
          }
          return EXIT_FAILED;
        });
    return cli;
  }

  /** The innermost message of a failure chain, which is the one that says what went wrong. */
  static String describe(Throwable e) {
    Throwable root = e;
    String message = e.getMessage();
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
      if (root.getMessage() != null) {
        message = root.getMessage();
      }
    }
    return message == null ? root.getClass().getSimpleName() : message;
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing a command, e.g. 'run'");
  }

  /** A problem with what the user asked for: exit code 2, no stack trace. */
  static final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }

  /** Reads the version Maven wrote into the jar. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() throws IOException {
      Properties p = new Properties();
      try (InputStream in =
          EventideCli.class.getResourceAsStream("/dev/eventide/pipelines/eventide.properties")) {
        if (in != null) {
          p.load(in);
        }
      }
      return new String[] {
        "eventide " + p.getProperty("version", "unknown"),
        "Apache Beam "
            + p.getProperty("beam.version", "unknown")
            + ", Flink "
            + p.getProperty("flink.version", "unknown")
            + ", Java "
            + System.getProperty("java.version")
      };
    }
  }
}
