package dev.eventide.trends.internal.engine;

import dev.eventide.trends.Event;
import dev.eventide.trends.query.Op;
import dev.eventide.trends.query.Predicate;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * The trend prefixes of one running sum indexed by the attribute that {@code E.a op NEXT(E).b}
 * reads from the earlier event, so that a later event splits them into those it may follow and the
 * rest without visiting them one by one.
 *
 * <p>One predicate on the type: an ordered index (a treap with subtree sums, one per value kind),
 * O(log n) additions per insert and per split. Several: a list scanned per later event, O(n) — the
 * one case of the executor whose cost per event grows with the window (a dominance query in several
 * dimensions).
 */
abstract class AdjacencyIndex {

  /** The index for the predicates of one type (at least one). */
  static AdjacencyIndex create(Predicate.OnAdjacent[] predicates, TrendSums.Shape shape) {
    return predicates.length == 1 ? new Ordered(predicates[0], shape) : new Scan(predicates);
  }

  /** What an index keeps of an earlier event: the attribute values its predicates read. */
  static Object keyOf(Predicate.OnAdjacent[] predicates, Event earlier) {
    if (predicates.length == 1) {
      return earlier.attribute(predicates[0].attribute());
    }
    Object[] key = new Object[predicates.length];
    for (int i = 0; i < key.length; i++) {
      key[i] = earlier.attribute(predicates[i].attribute());
    }
    return key;
  }

  abstract void insert(Object key, TrendSums value);

  /** Adds the prefixes the later event may follow to {@code holds}, the others to {@code fails}. */
  abstract void split(Event later, TrendSums holds, TrendSums fails);

  /** Every key with its sums (keys with equal values merged). */
  abstract void forEach(BiConsumer<Object, TrendSums> action);

  abstract int size();

  void addAllTo(AdjacencyIndex other) {
    forEach(other::insert);
  }

  /** A treap over the earlier attribute's values, numbers and strings apart. */
  static final class Ordered extends AdjacencyIndex {
    private final Predicate.OnAdjacent predicate;
    private final TrendSums.Shape shape;
    private Node numbers;
    private Node strings;

    /** Prefixes whose earlier attribute is missing: no later event may follow them. */
    private TrendSums unkeyed;

    private long inserted;
    private int size;

    Ordered(Predicate.OnAdjacent predicate, TrendSums.Shape shape) {
      this.predicate = predicate;
      this.shape = shape;
    }

    private static final class Node {
      final Object key;
      final TrendSums own;
      TrendSums subtree;
      final long priority;
      Node left;
      Node right;

      Node(Object key, TrendSums own, long priority) {
        this.key = key;
        this.own = own;
        this.subtree = own.copy();
        this.priority = priority;
      }
    }

    @Override
    void insert(Object key, TrendSums value) {
      if (key instanceof BigDecimal) {
        numbers = insert(numbers, key, value);
      } else if (key instanceof String) {
        strings = insert(strings, key, value);
      } else {
        if (unkeyed == null) {
          unkeyed = TrendSums.empty(shape);
        }
        unkeyed.add(value);
      }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compare(Object a, Object b) {
      return ((Comparable) a).compareTo(b);
    }

    private Node insert(Node n, Object key, TrendSums value) {
      if (n == null) {
        size++;
        return new Node(key, value.copy(), mix(++inserted));
      }
      n.subtree.add(value);
      int c = compare(key, n.key);
      if (c == 0) {
        n.own.add(value);
      } else if (c < 0) {
        n.left = insert(n.left, key, value);
        if (n.left.priority > n.priority) {
          n = rotateRight(n);
        }
      } else {
        n.right = insert(n.right, key, value);
        if (n.right.priority > n.priority) {
          n = rotateLeft(n);
        }
      }
      return n;
    }

    private static Node rotateRight(Node n) {
      Node l = n.left;
      n.left = l.right;
      l.right = n;
      l.subtree = n.subtree;
      n.subtree = recompute(n);
      return l;
    }

    private static Node rotateLeft(Node n) {
      Node r = n.right;
      n.right = r.left;
      r.left = n;
      r.subtree = n.subtree;
      n.subtree = recompute(n);
      return r;
    }

    private static TrendSums recompute(Node n) {
      TrendSums s = n.own.copy();
      if (n.left != null) {
        s.add(n.left.subtree);
      }
      if (n.right != null) {
        s.add(n.right.subtree);
      }
      return s;
    }

    /** A deterministic pseudo-random priority (SplitMix64), so runs are reproducible. */
    private static long mix(long x) {
      x += 0x9E3779B97F4A7C15L;
      x = (x ^ (x >>> 30)) * 0xBF58476D1CE4E5B9L;
      x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
      return x ^ (x >>> 31);
    }

    @Override
    void split(Event later, TrendSums holds, TrendSums fails) {
      Object v = later.attribute(predicate.nextAttribute());
      Node same = v instanceof BigDecimal ? numbers : v instanceof String ? strings : null;
      if (!(v instanceof BigDecimal)) {
        addSubtree(fails, numbers);
      }
      if (!(v instanceof String)) {
        addSubtree(fails, strings);
      }
      if (unkeyed != null) {
        fails.add(unkeyed);
      }
      if (same == null) {
        return;
      }
      Op op = predicate.op();
      boolean less = op == Op.LT || op == Op.LE || op == Op.NE;
      boolean equal = op == Op.LE || op == Op.GE || op == Op.EQ;
      boolean greater = op == Op.GT || op == Op.GE || op == Op.NE;
      // Descend once, adding each part whose keys are all below or all above v.
      for (Node n = same; n != null; ) {
        int c = compare(n.key, v);
        if (c < 0) {
          addSubtree(less ? holds : fails, n.left);
          (less ? holds : fails).add(n.own);
          n = n.right;
        } else if (c > 0) {
          addSubtree(greater ? holds : fails, n.right);
          (greater ? holds : fails).add(n.own);
          n = n.left;
        } else {
          addSubtree(less ? holds : fails, n.left);
          addSubtree(greater ? holds : fails, n.right);
          (equal ? holds : fails).add(n.own);
          break;
        }
      }
    }

    private static void addSubtree(TrendSums into, Node n) {
      if (n != null) {
        into.add(n.subtree);
      }
    }

    @Override
    void forEach(BiConsumer<Object, TrendSums> action) {
      inOrder(numbers, action);
      inOrder(strings, action);
      if (unkeyed != null) {
        action.accept(null, unkeyed);
      }
    }

    private static void inOrder(Node n, BiConsumer<Object, TrendSums> action) {
      List<Node> stack = new ArrayList<>();
      for (Node c = n; c != null || !stack.isEmpty(); ) {
        while (c != null) {
          stack.add(c);
          c = c.left;
        }
        c = stack.remove(stack.size() - 1);
        action.accept(c.key, c.own);
        c = c.right;
      }
    }

    @Override
    int size() {
      return size + (unkeyed == null ? 0 : 1);
    }
  }

  /** Several predicates: every entry checked against each later event. */
  static final class Scan extends AdjacencyIndex {
    private final Predicate.OnAdjacent[] predicates;
    private final List<Object[]> keys = new ArrayList<>();
    private final List<TrendSums> values = new ArrayList<>();

    Scan(Predicate.OnAdjacent[] predicates) {
      this.predicates = predicates;
    }

    @Override
    void insert(Object key, TrendSums value) {
      keys.add((Object[]) key);
      values.add(value.copy());
    }

    @Override
    void split(Event later, TrendSums holds, TrendSums fails) {
      Object[] next = new Object[predicates.length];
      for (int i = 0; i < next.length; i++) {
        next[i] = later.attribute(predicates[i].nextAttribute());
      }
      for (int k = 0; k < keys.size(); k++) {
        Object[] key = keys.get(k);
        boolean all = true;
        for (int i = 0; i < predicates.length && all; i++) {
          all = predicates[i].op().test(key[i], next[i]);
        }
        (all ? holds : fails).add(values.get(k));
      }
    }

    @Override
    void forEach(BiConsumer<Object, TrendSums> action) {
      for (int k = 0; k < keys.size(); k++) {
        action.accept(keys.get(k), values.get(k));
      }
    }

    @Override
    int size() {
      return keys.size();
    }
  }
}
