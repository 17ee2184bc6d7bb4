package dev.eventide.pipelines.bench.tiering;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.Locale;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A run's status line: how many of its events it has read, the share of the last interval's wall
 * time spent in the collectors' pauses (as the JVM's collector beans report them; G1's concurrent
 * marking, which runs beside the application, is not counted) and the heap in use. A JVM whose live
 * state nearly fills its heap can collect without end instead of failing with an out-of-memory
 * error; this line is how the parent tells such a run from a merely slow one.
 */
final class RunStatus {
  private static final String PREFIX = "STATUS ";
  private static final Pattern LINE =
      Pattern.compile(
          PREFIX
              + "([0-9]+) of ([0-9]+) events read; gc ([0-9.]+)% of the last ([0-9]+) s, heap in"
              + " use ([0-9.]+) MB");

  private RunStatus() {}

  /** Milliseconds the JVM's collectors have reported so far. */
  static long collectionMillis() {
    long total = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      total += Math.max(0, gc.getCollectionTime());
    }
    return total;
  }

  /**
   * Prints a status line on standard output every {@code seconds}, from a daemon thread, with the
   * events read so far (of {@code events}).
   */
  static void start(long seconds, LongSupplier eventsRead, long events) {
    Thread thread =
        new Thread(
            () -> {
              long lastGc = collectionMillis();
              long lastWall = System.nanoTime();
              while (true) {
                try {
                  Thread.sleep(seconds * 1000);
                } catch (InterruptedException e) {
                  return;
                }
                long gc = collectionMillis();
                long wall = System.nanoTime();
                double share = 100.0 * (gc - lastGc) / Math.max(1, (wall - lastWall) / 1e6);
                MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
                System.out.println(
                    line(
                        eventsRead.getAsLong(),
                        events,
                        Math.min(100, share),
                        seconds,
                        heap.getUsed()));
                System.out.flush();
                lastGc = gc;
                lastWall = wall;
              }
            },
            "tiering-run-status");
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * A status line: events read, the share of the last {@code seconds} spent collecting, the heap in
   * use.
   */
  static String line(long read, long events, double gcPercent, long seconds, long heapBytes) {
    return String.format(
        Locale.ROOT,
        "%s%d of %d events read; gc %.0f%% of the last %d s, heap in use %.1f MB",
        PREFIX,
        read,
        events,
        gcPercent,
        seconds,
        heapBytes / 1e6);
  }

  /** A status line's text without its prefix, as a parent reads it from the run's log. */
  static Optional<String> describe(String line) {
    Matcher m = LINE.matcher(line);
    if (!m.matches()) {
      return Optional.empty();
    }
    return Optional.of(
        String.format(
            Locale.ROOT,
            "%,d of %,d events read; in its last %s s, %s%% of the time in garbage collection,"
                + " %s MB of heap in use",
            Long.parseLong(m.group(1)),
            Long.parseLong(m.group(2)),
            m.group(4),
            m.group(3),
            m.group(5)));
  }
}
