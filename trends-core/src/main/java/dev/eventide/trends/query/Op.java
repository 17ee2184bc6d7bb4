package dev.eventide.trends.query;

import java.math.BigDecimal;

/**
 * A comparison operator of a WHERE predicate.
 *
 * <pre>{@code
 * Op.LT.symbol();                                              // "<"
 * Op.LT.test(new BigDecimal("8.5"), new BigDecimal("10"));     // true: WHERE Travel.speed < 10
 * }</pre>
 */
public enum Op {
  LT("<"),
  LE("<="),
  GT(">"),
  GE(">="),
  EQ("="),
  NE("!=");

  private final String symbol;

  Op(String symbol) {
    this.symbol = symbol;
  }

  public String symbol() {
    return symbol;
  }

  static Op ofSymbol(String symbol) {
    for (Op op : values()) {
      if (op.symbol.equals(symbol)) {
        return op;
      }
    }
    return null;
  }

  /**
   * Compares two attribute values: numbers numerically, strings lexicographically. Values of
   * different kinds never satisfy a predicate (validation of the events rules that out for the
   * attributes a workload uses).
   */
  public boolean test(Object left, Object right) {
    int c;
    if (left instanceof BigDecimal l && right instanceof BigDecimal r) {
      c = l.compareTo(r);
    } else if (left instanceof String l && right instanceof String r) {
      c = l.compareTo(r);
    } else {
      return false;
    }
    return switch (this) {
      case LT -> c < 0;
      case LE -> c <= 0;
      case GT -> c > 0;
      case GE -> c >= 0;
      case EQ -> c == 0;
      case NE -> c != 0;
    };
  }
}
