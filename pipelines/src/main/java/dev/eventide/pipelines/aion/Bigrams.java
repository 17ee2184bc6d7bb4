package dev.eventide.pipelines.aion;

import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;

/**
 * The Aion paper's "bigrams" window function: a value names one of {@value #WORDS} words, the
 * window's values in event-time order make a text, and the result is its most frequent bigram.
 */
public final class Bigrams {
  /** The vocabulary: value {@code v} is the word {@code "w" + v % WORDS}. */
  public static final int WORDS = 200;

  private Bigrams() {}

  /**
   * The most frequent pair of consecutive words as {@code "wA wB xN"} (N its count); among equally
   * frequent pairs, the first in alphabetical order; {@code "-"} for fewer than two values.
   *
   * @param valuesInOrder the window's values in event-time order
   */
  public static String mostFrequent(long[] valuesInOrder) {
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 1; i < valuesInOrder.length; i++) {
      counts.merge(word(valuesInOrder[i - 1]) + " " + word(valuesInOrder[i]), 1, Integer::sum);
    }
    return counts.entrySet().stream()
        .max(
            Map.Entry.<String, Integer>comparingByValue()
                .thenComparing(Map.Entry::getKey, Comparator.reverseOrder()))
        .map(e -> e.getKey() + " x" + e.getValue())
        .orElse("-");
  }

  private static String word(long value) {
    return "w" + Math.floorMod(value, WORDS);
  }
}
