package dev.eventide.trends.internal.engine;

import java.util.Random;

/**
 * How many 64-bit words the exact arithmetic touches ({@code eventide bench trends --floor}):
 * counted only in a JVM started with {@code -Deventide.trends.countWords=true} (the flag is a
 * constant, so elsewhere the counting compiles away), and not thread-safe: for one engine run in a
 * benchmark. Multiply-adds are the limbs of a product row (a count times a value or coefficient
 * limb), adds the limbs of a sum or difference, copies the limbs duplicated when a sum is copied.
 */
public final class WordCounts {
  /** Whether words are counted in this JVM. */
  public static final boolean ENABLED = Boolean.getBoolean("eventide.trends.countWords");

  static long multiplyAddWords;
  static long multiplyAddCalls;
  static long addWords;
  static long addCalls;
  static long copyWords;

  private WordCounts() {}

  /** The counts so far: multiply-add words and calls, add words and calls, copied words. */
  public record Counts(
      long multiplyAddWords, long multiplyAddCalls, long addWords, long addCalls, long copyWords) {}

  public static Counts counts() {
    return new Counts(multiplyAddWords, multiplyAddCalls, addWords, addCalls, copyWords);
  }

  public static void reset() {
    multiplyAddWords = 0;
    multiplyAddCalls = 0;
    addWords = 0;
    addCalls = 0;
    copyWords = 0;
  }

  static void multiplyAdd(int words) {
    multiplyAddWords += words;
    multiplyAddCalls++;
  }

  static void add(int words) {
    addWords += words;
    addCalls++;
  }

  static void copy(int words) {
    copyWords += words;
  }

  /**
   * The nanoseconds per word of this machine's fastest exact arithmetic of the kind the engine
   * does, on numbers of {@code limbs} limbs: {@code x += y · v} for a one-limb v (multiply-add) and
   * {@code x += y} (add), each timed over about {@code seconds} after as long a warm-up; the
   * fastest of a few passes counts.
   *
   * @return {multiply-add ns per word, add ns per word}
   */
  public static double[] nanosPerWord(int limbs, double seconds) {
    Random random = new Random(limbs);
    ExactInt y =
        new ExactInt(new java.math.BigInteger(64 * limbs - 1, random).setBit(64 * limbs - 2));
    long v = 1 + random.nextInt(1000);
    double[] best = {Double.MAX_VALUE, Double.MAX_VALUE};
    for (int pass = 0; pass < 6; pass++) {
      for (int kind = 0; kind < 2; kind++) {
        // x is reset each time it has grown by a limb or so, so that its size stays about limbs.
        ExactInt x = new ExactInt();
        ExactInt factor = new ExactInt(v);
        long words = 0;
        long started = System.nanoTime();
        long until = started + (long) (seconds / 6 * 1e9);
        int steps = 0;
        while (System.nanoTime() < until) {
          for (int k = 0; k < 64; k++) {
            if (kind == 0) {
              x.addProduct(y, factor);
            } else {
              x.add(y);
            }
            words += limbs;
            if (++steps % 64 == 0) {
              x = new ExactInt();
            }
          }
        }
        double ns = (System.nanoTime() - started) / (double) words;
        if (pass > 0) {
          best[kind] = Math.min(best[kind], ns);
        }
      }
    }
    return best;
  }
}
