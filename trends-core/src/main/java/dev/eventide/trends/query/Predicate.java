package dev.eventide.trends.query;

import java.math.BigDecimal;

/**
 * A WHERE predicate other than equivalence.
 *
 * <pre>{@code
 * for (Predicate.OnEvent where : query.eventPredicates("Travel")) {
 *   // WHERE Travel.speed < 10: attribute "speed", op Op.LT, constant 10
 *   System.out.println(where.attribute() + " " + where.op().symbol() + " " + where.constant());
 * }
 * }</pre>
 */
public sealed interface Predicate extends java.io.Serializable {

  /** The event type whose events the predicate constrains. */
  String type();

  /** {@code E.a op constant}: holds for every E event of a trend. */
  record OnEvent(String type, String attribute, Op op, Object constant) implements Predicate {
    @Override
    public String toString() {
      String value = constant instanceof BigDecimal d ? d.toPlainString() : "\"" + constant + "\"";
      return type + "." + attribute + " " + op.symbol() + " " + value;
    }
  }

  /**
   * {@code E.a op NEXT(E).b}: holds for every two consecutive events of a Kleene run {@code E+},
   * with {@code a} read from the earlier event and {@code b} from the later.
   */
  record OnAdjacent(String type, String attribute, Op op, String nextAttribute)
      implements Predicate {
    @Override
    public String toString() {
      return type + "." + attribute + " " + op.symbol() + " NEXT(" + type + ")." + nextAttribute;
    }
  }
}
