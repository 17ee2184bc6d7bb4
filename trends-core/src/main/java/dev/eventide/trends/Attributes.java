package dev.eventide.trends;

import java.io.Serializable;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * An event's attributes: names and values in two arrays, in the order they were given, read as an
 * unmodifiable {@link Map}. An event has a handful of attributes, so a name is found by comparing
 * it with each (faster than hashing it, and nothing to build per event); beyond {@link #SCANNED}
 * names an index is built on the first lookup.
 */
final class Attributes extends AbstractMap<String, Object> implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final int SCANNED = 8;

  private final String[] names;
  private final Object[] values;
  private transient Map<String, Integer> index;

  Attributes(String[] names, Object[] values) {
    this.names = names;
    this.values = values;
  }

  private int indexOf(Object name) {
    if (names.length > SCANNED) {
      if (index == null) {
        Map<String, Integer> built = new HashMap<>(names.length * 2);
        for (int i = 0; i < names.length; i++) {
          built.put(names[i], i);
        }
        index = built;
      }
      Integer i = index.get(name);
      return i == null ? -1 : i;
    }
    for (int i = 0; i < names.length; i++) {
      if (names[i].equals(name)) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public Object get(Object name) {
    int i = indexOf(name);
    return i < 0 ? null : values[i];
  }

  @Override
  public boolean containsKey(Object name) {
    return indexOf(name) >= 0;
  }

  @Override
  public int size() {
    return names.length;
  }

  @Override
  public boolean isEmpty() {
    return names.length == 0;
  }

  @Override
  public void forEach(BiConsumer<? super String, ? super Object> action) {
    for (int i = 0; i < names.length; i++) {
      action.accept(names[i], values[i]);
    }
  }

  @Override
  public Set<Map.Entry<String, Object>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public Iterator<Map.Entry<String, Object>> iterator() {
        return new Iterator<>() {
          private int next;

          @Override
          public boolean hasNext() {
            return next < names.length;
          }

          @Override
          public Map.Entry<String, Object> next() {
            if (next >= names.length) {
              throw new NoSuchElementException();
            }
            int i = next++;
            return new AbstractMap.SimpleImmutableEntry<>(names[i], values[i]);
          }
        };
      }

      @Override
      public int size() {
        return names.length;
      }
    };
  }
}
