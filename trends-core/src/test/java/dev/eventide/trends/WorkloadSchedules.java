package dev.eventide.trends;

import dev.eventide.trends.query.Query;
import dev.eventide.trends.query.Workload;
import dev.eventide.trends.query.WorkloadChange;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Seeded schedules of workload changes over {@link RandomWorkloads}' queries, and the reference for
 * them: each query as it ran (from its addition to its removal) and brute force's results over the
 * windows it was in force for. Shares no code with the engines beyond {@link
 * WorkloadChange#applyTo}.
 */
public final class WorkloadSchedules {
  private WorkloadSchedules() {}

  /** A query as it ran: its text's query, and the times it was added and removed at. */
  public record Incarnation(Query query, long added, long removed) {}

  /**
   * A seeded case: a workload of three queries ({@code q0}–{@code q2}), every other seed sharing a
   * Kleene type over a bursty stream, a schedule of changes drawing on five more queries (some that
   * do not apply), the changes that apply and each query as it ran under them.
   */
  public record Case(
      Workload initial,
      List<WorkloadChange> schedule,
      List<WorkloadChange> applied,
      List<Incarnation> ran,
      List<Event> events) {

    /**
     * @param bursty the number of events of a sharing case's bursty stream
     * @param events the number of events of the other cases, at times in [0, span)
     */
    public static Case of(long seed, int bursty, int events, int span) {
      RandomWorkloads workloads = new RandomWorkloads(seed);
      boolean sharable = seed % 2 == 0;
      List<String> texts = blocks(sharable ? workloads.sharableWorkload(8) : workloads.workload(8));
      List<Event> stream =
          sharable ? workloads.burstyEvents(bursty) : workloads.events(events, span);
      Workload initial = Workload.parse(String.join("\n\n", texts.subList(0, 3)));
      long end = stream.get(stream.size() - 1).time() + 2;
      List<WorkloadChange> schedule = WorkloadSchedules.schedule(new Random(seed), texts, end);
      List<WorkloadChange> applied = new ArrayList<>();
      List<Incarnation> ran = incarnations(initial, schedule, applied);
      return new Case(initial, schedule, List.copyOf(applied), ran, stream);
    }

    /** Brute force's results of each query over the windows it was in force for, sorted. */
    public List<TrendResult> expected() {
      return bruteForce(ran, events);
    }

    /** The same over some of the events (those a window admitted, say), in time order. */
    public List<TrendResult> expected(List<Event> some) {
      return bruteForce(ran, some);
    }

    /** The case, to read in a failure message. */
    public String describe() {
      return "initial:\n"
          + initial.queries()
          + "\nchanges: "
          + schedule.stream().map(WorkloadChange::describe).toList()
          + "\nevents: "
          + events;
    }
  }

  /**
   * One to four changes in time order (several may share a time): removals of running queries,
   * additions of queries from {@code texts[3..]}, a replacement (a removal and an addition of the
   * same name with another text at one time), and now and then one that does not apply.
   */
  static List<WorkloadChange> schedule(Random random, List<String> texts, long span) {
    List<String> running = new ArrayList<>(List.of("q0", "q1", "q2"));
    List<WorkloadChange> changes = new ArrayList<>();
    int unused = 3;
    long time = 0;
    int count = 1 + random.nextInt(4);
    for (int i = 0; i < count; i++) {
      time += random.nextInt(3) == 0 ? 0 : 1 + random.nextInt((int) Math.max(1, span / 3));
      switch (random.nextInt(5)) {
        case 0, 1 -> {
          if (unused < texts.size()) {
            String text = texts.get(unused++);
            changes.add(WorkloadChange.add(time, text));
            running.add(name(text));
          }
        }
        case 2 -> {
          if (running.size() > 1) {
            changes.add(
                WorkloadChange.remove(time, running.remove(random.nextInt(running.size()))));
          }
        }
        case 3 -> {
          if (unused < texts.size() && !running.isEmpty()) {
            String replaced = running.get(random.nextInt(running.size()));
            String text = texts.get(unused++).replaceFirst("QUERY \\w+", "QUERY " + replaced);
            changes.add(WorkloadChange.remove(time, replaced));
            changes.add(WorkloadChange.add(time, text));
          }
        }
        default ->
            changes.add(
                random.nextBoolean()
                    ? WorkloadChange.remove(time, "nobody")
                    : WorkloadChange.add(time, texts.get(0)));
      }
    }
    changes.sort(WorkloadChange.ORDER);
    return changes;
  }

  private static String name(String text) {
    return text.strip().split("\\s+")[1];
  }

  private static List<String> blocks(String text) {
    return Arrays.stream(text.split("\n\n")).map(String::strip).filter(b -> !b.isEmpty()).toList();
  }

  /** Brute force's results of each query over the windows it was in force for, sorted. */
  private static List<TrendResult> bruteForce(List<Incarnation> ran, List<Event> events) {
    List<TrendResult> expected = new ArrayList<>();
    for (Incarnation q : ran) {
      for (TrendResult r : BruteForce.evaluate(new Workload(List.of(q.query())), events)) {
        if (r.windowStart() >= q.added() && r.windowEnd() <= q.removed()) {
          expected.add(r);
        }
      }
    }
    expected.sort(BruteForce.ORDER);
    return expected;
  }

  /**
   * The changes of a schedule that apply, in order, and every query as it ran under them (a
   * reference that shares no code with the engines beyond {@link WorkloadChange#applyTo}).
   */
  private static List<Incarnation> incarnations(
      Workload initial, List<WorkloadChange> changes, List<WorkloadChange> applied) {
    List<Incarnation> running = new ArrayList<>();
    List<Incarnation> ended = new ArrayList<>();
    initial.queries().forEach(q -> running.add(new Incarnation(q, Long.MIN_VALUE, Long.MAX_VALUE)));
    Workload current = initial;
    for (WorkloadChange c : changes) {
      try {
        current = c.applyTo(current);
      } catch (IllegalArgumentException refused) {
        continue;
      }
      applied.add(c);
      if (c.add() != null) {
        Workload.parse(c.add())
            .queries()
            .forEach(q -> running.add(new Incarnation(q, c.time(), Long.MAX_VALUE)));
      } else {
        for (Incarnation q : List.copyOf(running)) {
          if (c.remove().contains(q.query().name())) {
            running.remove(q);
            ended.add(new Incarnation(q.query(), q.added(), c.time()));
          }
        }
      }
    }
    ended.addAll(running);
    return ended;
  }
}
