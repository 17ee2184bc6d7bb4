package dev.eventide.trends;

import dev.eventide.trends.query.Pattern;
import dev.eventide.trends.query.Patterns;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Seeded random workloads (as query text, so the parser is exercised too) and event streams over
 * four types A–D with attributes {@code a} (small integers), {@code s} (a string), {@code k} (an
 * equivalence key) and {@code g} (a group). Small enough for {@link BruteForce}.
 */
public final class RandomWorkloads {
  private static final String[] TYPES = {"A", "B", "C", "D"};
  private static final String[] OPS = {"<", "<=", ">", ">=", "=", "!="};

  private final Random random;

  public RandomWorkloads(long seed) {
    this.random = new Random(seed);
  }

  /** The text of a workload of the given number of queries. */
  public String workload(int queries) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < queries; i++) {
      text.append(query("q" + i)).append('\n');
    }
    return text.toString();
  }

  /**
   * A workload whose queries share a Kleene type {@code B+} in patterns of the paper's shape,
   * {@code SEQ(X, B+)} or {@code SEQ(X, B+, Y)}, a NOT before or after {@code B+} in some, with
   * differing predicates: HAMLET's sharing case.
   */
  public String sharableWorkload(int queries) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < queries; i++) {
      String first = pick("A", "C", "D");
      String pattern =
          random.nextBoolean()
              ? "SEQ(" + first + ", B+)"
              : "SEQ(" + first + ", B+, " + pick("A", "C", "D") + ")";
      if (random.nextInt(4) == 0) {
        // A NOT before the Kleene type cuts the starts; one after it cuts the burst's prefixes.
        pattern =
            random.nextBoolean()
                ? "SEQ(" + first + ", NOT " + pick("C", "D") + ", B+)"
                : "SEQ(" + first + ", B+, NOT " + pick("C", "D") + ", " + pick("A", "C", "D") + ")";
      }
      text.append("QUERY q").append(i).append('\n');
      text.append("RETURN ").append(pick("COUNT(*)", "COUNT(B)", "SUM(B.a)", "AVG(B.a)"));
      text.append('\n').append("PATTERN ").append(pattern).append('\n');
      List<String> where = new ArrayList<>();
      if (random.nextInt(3) == 0) {
        where.add("B.a " + pick(OPS) + " " + random.nextInt(4));
      }
      if (random.nextInt(3) == 0) {
        where.add(first + ".a " + pick(OPS) + " " + random.nextInt(4));
      }
      if (!where.isEmpty()) {
        text.append("WHERE ").append(String.join(" AND ", where)).append('\n');
      }
      text.append("GROUPBY g\nWITHIN 20 ms SLIDE 10 ms\n\n");
    }
    return text.toString();
  }

  /**
   * A workload for windows of thousands of events, every pattern form, partitioned by an
   * equivalence over ten keys (so that GRETA, quadratic per partition, stays fast): WITHIN 500 ms,
   * tumbling or sliding by 250 ms. For {@link #denseEvents}.
   */
  public String largeWindowWorkload(int queries) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < queries; i++) {
      text.append(query("q" + i, true)).append('\n');
    }
    return text.toString();
  }

  /** {@code count} events at times in [0, span), in time order, equivalence keys k in 0–9. */
  public List<Event> denseEvents(int count, int span) {
    return events(count, span, 10);
  }

  private String query(String name) {
    return query(name, false);
  }

  private String query(String name, boolean large) {
    Pattern pattern = pattern(3);
    List<String> positive = new ArrayList<>(pattern.positiveTypes());
    List<String> all = new ArrayList<>(positive);
    all.addAll(pattern.negatedTypes());
    StringBuilder q = new StringBuilder("QUERY ").append(name).append('\n');
    String x = positive.get(random.nextInt(positive.size()));
    q.append("RETURN ")
        .append(
            switch (random.nextInt(6)) {
              case 0 -> "COUNT(*)";
              case 1 -> "COUNT(" + x + ")";
              case 2 -> "SUM(" + x + ".a)";
              case 3 -> "AVG(" + x + ".a)";
              case 4 -> "MIN(" + x + ".a)";
              default -> "MAX(" + x + ".a)";
            })
        .append('\n');
    q.append("PATTERN ").append(pattern).append('\n');
    List<String> where = new ArrayList<>();
    if (large || random.nextInt(4) == 0) {
      where.add("[k]");
    }
    for (String type : all) {
      if (random.nextInt(3) == 0) {
        where.add(
            random.nextInt(5) == 0
                ? type + ".s " + pick("=", "!=") + " \"" + pick("x", "y") + "\""
                : type + ".a " + pick(OPS) + " " + random.nextInt(4));
      }
    }
    for (String type : pattern.kleeneTypes()) {
      if (random.nextInt(2) == 0) {
        where.add(type + ".a " + pick(OPS) + " NEXT(" + type + ").a");
      }
    }
    if (!where.isEmpty()) {
      q.append("WHERE ").append(String.join(" AND ", where)).append('\n');
    }
    if (random.nextBoolean()) {
      q.append("GROUPBY g\n");
    }
    int within = large ? 500 : 8 + random.nextInt(20);
    q.append("WITHIN ").append(within).append(" ms");
    if (large) {
      q.append(random.nextBoolean() ? " SLIDE 250 ms" : "");
    } else if (random.nextBoolean()) {
      q.append(" SLIDE ").append(1 + random.nextInt(within)).append(" ms");
    }
    return q.append('\n').toString();
  }

  private Pattern pattern(int depth) {
    int choice = depth <= 0 ? random.nextInt(2) : random.nextInt(7);
    return switch (choice) {
      case 0 -> new Pattern.Atom(pick(TYPES));
      case 1 -> new Pattern.Kleene(new Pattern.Atom(pick(TYPES)));
      case 2, 3 -> {
        List<Pattern> items = new ArrayList<>();
        int n = 2 + random.nextInt(2);
        for (int i = 0; i < n; i++) {
          if (random.nextInt(5) == 0) {
            items.add(new Pattern.Not(pick(TYPES)));
          }
          items.add(pattern(depth - 1));
        }
        if (random.nextInt(6) == 0) {
          items.add(new Pattern.Not(pick(TYPES)));
        }
        yield new Pattern.Seq(items);
      }
      case 4 -> new Pattern.Or(List.of(pattern(depth - 1), pattern(depth - 1)));
      case 5 -> new Pattern.And(List.of(pattern(depth - 1), pattern(depth - 1)));
      default -> {
        Pattern inner = pattern(depth - 1);
        yield Patterns.unwrap(inner) instanceof Pattern.Kleene ? inner : new Pattern.Kleene(inner);
      }
    };
  }

  /** Events at times in [0, span), several per time, in time order. */
  public List<Event> events(int count, int span) {
    return events(count, span, 2);
  }

  private List<Event> events(int count, int span, int keys) {
    List<Event> events = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      events.add(
          Event.of(
              pick(TYPES),
              random.nextInt(span),
              "a",
              random.nextInt(4),
              "s",
              pick("x", "y"),
              "k",
              random.nextInt(keys),
              "g",
              random.nextInt(2)));
    }
    events.sort(java.util.Comparator.comparingLong(Event::time));
    return events;
  }

  /** Events of a bursty stream: runs of B events between single events of the other types. */
  public List<Event> burstyEvents(int count) {
    List<Event> events = new ArrayList<>();
    long time = 0;
    while (events.size() < count) {
      String type = random.nextInt(3) == 0 ? pick("A", "C", "D") : "B";
      int run = type.equals("B") ? 1 + random.nextInt(5) : 1;
      for (int i = 0; i < run && events.size() < count; i++) {
        time += random.nextInt(3) == 0 ? 0 : 1;
        events.add(Event.of(type, time, "a", random.nextInt(4), "g", random.nextInt(2)));
      }
    }
    return events;
  }

  private String pick(String... options) {
    return options[random.nextInt(options.length)];
  }
}
