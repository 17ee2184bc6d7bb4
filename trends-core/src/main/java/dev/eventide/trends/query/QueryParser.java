package dev.eventide.trends.query;

import dev.eventide.trends.query.Tokenizer.Kind;
import dev.eventide.trends.query.Tokenizer.Token;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A hand-written recursive-descent parser for Eventide's SASE-style query language (grammar and
 * semantics in the project's {@code docs/trends-query-language.md}). Every error, syntactic or
 * semantic, names the line, the column, what was found and what was expected or why it is wrong.
 */
final class QueryParser {
  private static final Set<String> KEYWORDS =
      Set.of(
          "QUERY", "RETURN", "PATTERN", "WHERE", "GROUPBY", "WITHIN", "SLIDE", "SEQ", "OR", "AND",
          "NOT", "NEXT", "COUNT", "SUM", "AVG", "MIN", "MAX");

  /** Each event is evaluated once per window containing it. */
  static final int MAX_OVERLAPPING_WINDOWS = 1000;

  /**
   * Patterns nest at most this deep (SEQ, OR, AND, parentheses, '+'): the parser and the compiler
   * recurse over a pattern, and an automaton of at most 63 states needs far less.
   */
  static final int MAX_NESTING = 100;

  private final List<Token> tokens;
  private int position;
  private int nesting;

  private QueryParser(List<Token> tokens) {
    this.tokens = tokens;
  }

  static List<Query> parse(String text) {
    QueryParser parser = new QueryParser(Tokenizer.tokenize(text));
    List<Query> queries = new ArrayList<>();
    Set<String> names = new HashSet<>();
    while (parser.peek().kind() != Kind.END) {
      Token start = parser.peek();
      Query query = parser.query();
      if (!names.add(query.name())) {
        throw new QueryException(
            start.line(), start.column(), "a second query named '" + query.name() + "'");
      }
      queries.add(query);
    }
    if (queries.isEmpty()) {
      Token end = parser.peek();
      throw new QueryException(end.line(), end.column(), "expected 'QUERY' but found no query");
    }
    return queries;
  }

  // ---------------------------------------------------------------- clauses

  /** A type named in RETURN or WHERE, remembered with its token to validate against PATTERN. */
  private record TypeUse(Token token, String clause) {}

  private Query query() {
    Token start = expectWord("QUERY");
    String name = identifier("a query name");
    List<TypeUse> uses = new ArrayList<>();

    expectWord("RETURN");
    Aggregation aggregation = aggregation(uses);

    expectWord("PATTERN");
    Token patternToken = peek();
    Pattern pattern = pattern(true);
    if (pattern instanceof Pattern.Not) {
      throw error(patternToken, "a pattern cannot be only NOT; use NOT inside SEQ(...)");
    }

    List<String> equivalence = new ArrayList<>();
    List<Predicate> predicates = new ArrayList<>();
    List<Token> nextTokens = new ArrayList<>();
    if (acceptWord("WHERE")) {
      do {
        condition(equivalence, predicates, uses, nextTokens);
      } while (acceptWord("AND"));
    }

    List<String> groupBy = new ArrayList<>();
    if (acceptWord("GROUPBY")) {
      do {
        Token t = peek();
        String attribute = identifier("an attribute name");
        if (groupBy.contains(attribute)) {
          throw error(t, "attribute '" + attribute + "' appears twice in GROUPBY");
        }
        groupBy.add(attribute);
      } while (acceptSymbol(","));
    }

    expectWord("WITHIN");
    long within = duration();
    long slide = within;
    if (acceptWord("SLIDE")) {
      Token t = peek();
      slide = duration();
      if (slide > within) {
        throw error(
            t, "SLIDE (" + slide + " ms) must not be larger than WITHIN (" + within + " ms)");
      }
      // ceil(within / slide), written so that it cannot overflow near Long.MAX_VALUE.
      long overlapping = within / slide + (within % slide == 0 ? 0 : 1);
      if (overlapping > MAX_OVERLAPPING_WINDOWS) {
        throw error(
            t,
            "WITHIN ("
                + within
                + " ms) spans "
                + overlapping
                + " windows of SLIDE ("
                + slide
                + " ms); every window is evaluated on its own, so at most "
                + MAX_OVERLAPPING_WINDOWS
                + " may overlap");
      }
    }

    Set<String> positive = pattern.positiveTypes();
    Set<String> all = new LinkedHashSet<>(positive);
    all.addAll(pattern.negatedTypes());
    for (TypeUse use : uses) {
      String type = use.token().text();
      Set<String> allowed = use.clause().equals("RETURN") ? positive : all;
      if (!allowed.contains(type)) {
        throw error(
            use.token(),
            "unknown event type '"
                + type
                + "' in "
                + use.clause()
                + ": the pattern of "
                + name
                + " matches "
                + String.join(", ", allowed));
      }
    }
    Set<String> kleene = pattern.kleeneTypes();
    for (Token next : nextTokens) {
      if (!kleene.contains(next.text())) {
        throw error(
            next,
            "NEXT("
                + next.text()
                + ") needs a Kleene type, but "
                + next.text()
                + "+ does not occur in the pattern of "
                + name);
      }
    }
    return new Query(
        name,
        aggregation,
        pattern,
        List.copyOf(new LinkedHashSet<>(equivalence)),
        predicates,
        groupBy,
        within,
        slide,
        start.line(),
        start.column());
  }

  private Aggregation aggregation(List<TypeUse> uses) {
    Token function = next();
    String f = function.kind() == Kind.WORD ? function.text() : "";
    switch (f) {
      case "COUNT" -> {
        expectSymbol("(");
        if (acceptSymbol("*")) {
          expectSymbol(")");
          return Aggregation.countTrends();
        }
        Token type = peek();
        identifier("'*' or an event type");
        uses.add(new TypeUse(type, "RETURN"));
        expectSymbol(")");
        return new Aggregation(Aggregation.Kind.COUNT_EVENTS, type.text(), null);
      }
      case "SUM", "AVG", "MIN", "MAX" -> {
        expectSymbol("(");
        Token type = peek();
        identifier("an event type");
        uses.add(new TypeUse(type, "RETURN"));
        expectSymbol(".");
        String attribute = identifier("an attribute name");
        expectSymbol(")");
        return new Aggregation(Aggregation.Kind.valueOf(f), type.text(), attribute);
      }
      default -> throw expected(function, "COUNT, SUM, AVG, MIN or MAX");
    }
  }

  private void condition(
      List<String> equivalence,
      List<Predicate> predicates,
      List<TypeUse> uses,
      List<Token> nextTokens) {
    if (acceptSymbol("[")) {
      do {
        equivalence.add(identifier("an attribute name"));
      } while (acceptSymbol(","));
      expectSymbol("]", "',' or ']'");
      return;
    }
    Token type = peek();
    identifier("'[' or an event type");
    uses.add(new TypeUse(type, "WHERE"));
    expectSymbol(".");
    String attribute = identifier("an attribute name");
    Token opToken = next();
    Op op = opToken.kind() == Kind.SYMBOL ? Op.ofSymbol(opToken.text()) : null;
    if (op == null) {
      throw expected(opToken, "a comparison (<, <=, >, >=, =, !=)");
    }
    Token value = next();
    switch (value.kind()) {
      case NUMBER ->
          predicates.add(
              new Predicate.OnEvent(type.text(), attribute, op, new BigDecimal(value.text())));
      case STRING ->
          predicates.add(new Predicate.OnEvent(type.text(), attribute, op, value.text()));
      case WORD -> {
        if (!value.text().equals("NEXT")) {
          throw expected(value, "a number, a string or NEXT(" + type.text() + ")");
        }
        expectSymbol("(");
        Token nextType = peek();
        identifier("an event type");
        if (!nextType.text().equals(type.text())) {
          throw error(
              nextType,
              "NEXT("
                  + nextType.text()
                  + ") must name the type on the left, "
                  + type.text()
                  + ": adjacent-event predicates compare consecutive events of one Kleene run");
        }
        nextTokens.add(nextType);
        expectSymbol(")");
        expectSymbol(".");
        String nextAttribute = identifier("an attribute name");
        predicates.add(new Predicate.OnAdjacent(type.text(), attribute, op, nextAttribute));
      }
      default -> throw expected(value, "a number, a string or NEXT(" + type.text() + ")");
    }
  }

  // ---------------------------------------------------------------- patterns

  private Pattern pattern(boolean allowNot) {
    Token start = peek();
    if (nesting == MAX_NESTING) {
      throw error(start, "patterns nest at most " + MAX_NESTING + " levels deep");
    }
    nesting++;
    try {
      return unnestedPattern(start, allowNot);
    } finally {
      nesting--;
    }
  }

  private Pattern unnestedPattern(Token start, boolean allowNot) {
    Pattern p;
    if (acceptWord("NOT")) {
      if (!allowNot) {
        throw error(start, "NOT is allowed only as an item of SEQ(...)");
      }
      Token type = peek();
      identifier("an event type after NOT");
      if (peek().kind() == Kind.SYMBOL && peek().text().equals("+")) {
        throw error(peek(), "NOT takes one event type; a Kleene plus cannot follow it");
      }
      return new Pattern.Not(type.text());
    } else if (acceptWord("SEQ")) {
      expectSymbol("(");
      List<Pattern> items = new ArrayList<>();
      do {
        items.add(pattern(true));
      } while (acceptSymbol(","));
      expectSymbol(")", "',' or ')'");
      if (items.stream().allMatch(i -> i instanceof Pattern.Not)) {
        throw error(start, "SEQ needs at least one item that is not NOT");
      }
      p = new Pattern.Seq(items);
    } else if (peek().kind() == Kind.WORD
        && (peek().text().equals("OR") || peek().text().equals("AND"))) {
      String operator = next().text();
      expectSymbol("(");
      List<Pattern> operands = new ArrayList<>();
      do {
        operands.add(pattern(false));
      } while (acceptSymbol(","));
      expectSymbol(")", "',' or ')'");
      if (operands.size() < 2) {
        throw error(start, operator + " needs at least two operands");
      }
      p = operator.equals("OR") ? new Pattern.Or(operands) : new Pattern.And(operands);
    } else if (acceptSymbol("(")) {
      p = pattern(false);
      expectSymbol(")");
    } else {
      p = new Pattern.Atom(identifier("an event type, SEQ, OR, AND or '('"));
    }
    // Each '+' wraps the pattern once more: a level of nesting like any other.
    int levels = nesting;
    while (peek().kind() == Kind.SYMBOL && peek().text().equals("+")) {
      if (levels == MAX_NESTING) {
        throw error(
            peek(), "patterns nest at most " + MAX_NESTING + " levels deep (each '+' is one)");
      }
      next();
      levels++;
      p = new Pattern.Kleene(p);
    }
    return p;
  }

  // ---------------------------------------------------------------- durations

  private long duration() {
    Token amount = next();
    if (amount.kind() != Kind.NUMBER || amount.text().contains(".")) {
      throw expected(amount, "a whole number of time units, e.g. '30 minutes'");
    }
    long n;
    try {
      n = Long.parseLong(amount.text());
    } catch (NumberFormatException tooLarge) {
      throw error(amount, "a window length must be at most " + Long.MAX_VALUE + " units");
    }
    if (n <= 0) {
      throw error(amount, "a window length must be positive, but was " + n);
    }
    Token unit = next();
    long millis = unit.kind() == Kind.WORD ? TimeUnits.millisPer(unit.text()) : -1;
    if (millis < 0) {
      throw expected(unit, "a time unit: " + TimeUnits.UNITS);
    }
    if (n > Long.MAX_VALUE / millis) {
      throw error(
          amount,
          n
              + " "
              + unit.text()
              + " is longer than the longest window, "
              + Long.MAX_VALUE
              + " ms (about 292 million years)");
    }
    return n * millis;
  }

  // ---------------------------------------------------------------- tokens

  private Token peek() {
    return tokens.get(position);
  }

  private Token next() {
    Token t = tokens.get(position);
    if (t.kind() != Kind.END) {
      position++;
    }
    return t;
  }

  private boolean acceptWord(String word) {
    if (peek().kind() == Kind.WORD && peek().text().equals(word)) {
      position++;
      return true;
    }
    return false;
  }

  private boolean acceptSymbol(String symbol) {
    if (peek().kind() == Kind.SYMBOL && peek().text().equals(symbol)) {
      position++;
      return true;
    }
    return false;
  }

  private Token expectWord(String word) {
    Token t = next();
    if (t.kind() != Kind.WORD || !t.text().equals(word)) {
      throw expected(t, "'" + word + "'");
    }
    return t;
  }

  private void expectSymbol(String symbol) {
    expectSymbol(symbol, "'" + symbol + "'");
  }

  private void expectSymbol(String symbol, String expected) {
    Token t = next();
    if (t.kind() != Kind.SYMBOL || !t.text().equals(symbol)) {
      throw expected(t, expected);
    }
  }

  private String identifier(String what) {
    Token t = next();
    if (t.kind() != Kind.WORD || KEYWORDS.contains(t.text())) {
      throw expected(t, what);
    }
    return t.text();
  }

  private static QueryException expected(Token found, String expected) {
    return error(found, "expected " + expected + " but found " + found.describe());
  }

  private static QueryException error(Token at, String problem) {
    return new QueryException(at.line(), at.column(), problem);
  }
}
