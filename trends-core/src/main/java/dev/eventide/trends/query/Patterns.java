package dev.eventide.trends.query;

/**
 * Small helpers over {@link Pattern}.
 *
 * <pre>{@code
 * Pattern p = Patterns.unwrap(query.pattern());   // SEQ(Travel+) is Travel+
 * }</pre>
 */
public final class Patterns {
  private Patterns() {}

  /** A sequence of one positive item means that item: {@code SEQ(A)} is {@code A}. */
  public static Pattern unwrap(Pattern p) {
    while (p instanceof Pattern.Seq s && s.items().size() == 1) {
      p = s.items().get(0);
    }
    return p;
  }
}
