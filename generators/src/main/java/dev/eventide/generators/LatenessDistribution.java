package dev.eventide.generators;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.commons.math3.distribution.LogNormalDistribution;
import org.apache.commons.math3.distribution.NormalDistribution;
import org.apache.commons.math3.distribution.RealDistribution;
import org.apache.commons.math3.distribution.UniformRealDistribution;
import org.apache.commons.math3.random.RandomGenerator;

/**
 * How many windows late an event is: the Aion paper's {@code windowindex} in {@code ts =
 * currenttime − windowindex × windowduration}. The paper's default is {@link #logNormal(double,
 * double) logNormal(0, 1)}, under which the chance that a window still receives an event decays
 * exponentially with its age; {@link #uniform}, {@link #normal} and {@link #bursts} are the other
 * distributions of its staleness experiments.
 *
 * <pre>{@code
 * LatenessDistribution aion = LatenessDistribution.logNormal(0.5, 1.0);   // the paper's
 * LatenessDistribution fromFlag = LatenessDistribution.parse("uniform(0,3)");
 * }</pre>
 *
 * <p>Instances are immutable, serializable specifications; {@link #sampler} binds one to a seeded
 * random generator. Samples are never negative.
 */
public final class LatenessDistribution implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final int MAX_RESAMPLES = 10_000;
  private static final Pattern SPEC =
      Pattern.compile("\\s*([a-z]+)\\s*(?:\\(([^)]*)\\))?\\s*", Pattern.CASE_INSENSITIVE);

  private enum Kind {
    LOGNORMAL(2),
    UNIFORM(2),
    NORMAL(2),
    BURSTS(-1);

    final int arity;

    Kind(int arity) {
      this.arity = arity;
    }
  }

  private final Kind kind;
  private final double[] parameters;

  private LatenessDistribution(Kind kind, double... parameters) {
    this.kind = kind;
    this.parameters = parameters.clone();
  }

  /** Returns a log-normal distribution whose logarithm has mean {@code mu} and sd {@code sigma}. */
  public static LatenessDistribution logNormal(double mu, double sigma) {
    requirePositive("sigma", sigma);
    return new LatenessDistribution(Kind.LOGNORMAL, mu, sigma);
  }

  /** Returns a uniform distribution over {@code [min, max)} windows. */
  public static LatenessDistribution uniform(double min, double max) {
    if (!(min >= 0 && max > min)) {
      throw new IllegalArgumentException(
          String.format("uniform lateness needs 0 <= min < max, but was [%s, %s)", min, max));
    }
    return new LatenessDistribution(Kind.UNIFORM, min, max);
  }

  /** Returns a normal distribution, truncated at 0 by resampling. */
  public static LatenessDistribution normal(double mean, double sd) {
    if (!(mean >= 0)) {
      throw new IllegalArgumentException("normal lateness needs mean >= 0, but was " + mean);
    }
    requirePositive("sd", sd);
    return new LatenessDistribution(Kind.NORMAL, mean, sd);
  }

  /**
   * Returns bursts of late events: an equal-weight mix of normal distributions with the given
   * centres (in windows) and a common {@code sd}, truncated at 0 by resampling.
   */
  public static LatenessDistribution bursts(double sd, double... centres) {
    requirePositive("sd", sd);
    if (centres.length == 0) {
      throw new IllegalArgumentException("bursts lateness needs at least one centre");
    }
    for (double centre : centres) {
      if (!(centre >= 0)) {
        throw new IllegalArgumentException("bursts centres must be >= 0, but one was " + centre);
      }
    }
    double[] parameters = new double[centres.length + 1];
    parameters[0] = sd;
    System.arraycopy(centres, 0, parameters, 1, centres.length);
    return new LatenessDistribution(Kind.BURSTS, parameters);
  }

  /**
   * Parses {@code lognormal(mu,sigma)}, {@code uniform(min,max)}, {@code normal(mean,sd)} or {@code
   * bursts(sd,c1,c2,...)}; a bare name takes the defaults {@code lognormal(0,1)}, {@code
   * uniform(0,4)}, {@code normal(2,0.5)}, {@code bursts(0.2,0.5,2,5)}.
   *
   * @throws IllegalArgumentException naming the problem and the accepted forms
   */
  public static LatenessDistribution parse(String spec) {
    Matcher m = SPEC.matcher(spec == null ? "" : spec);
    if (!m.matches()) {
      throw new IllegalArgumentException(badSpec(spec, "not of the form name(a,b,...)"));
    }
    Kind kind;
    try {
      kind = Kind.valueOf(m.group(1).toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          badSpec(spec, "unknown distribution '" + m.group(1) + "'"));
    }
    if (m.group(2) == null) {
      switch (kind) {
        case LOGNORMAL:
          return logNormal(0, 1);
        case UNIFORM:
          return uniform(0, 4);
        case NORMAL:
          return normal(2, 0.5);
        default:
          return bursts(0.2, 0.5, 2, 5);
      }
    }
    List<Double> values = new ArrayList<>();
    for (String part : m.group(2).split(",", -1)) {
      try {
        values.add(Double.parseDouble(part.trim()));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(badSpec(spec, "'" + part.trim() + "' is not a number"));
      }
    }
    double[] p = values.stream().mapToDouble(Double::doubleValue).toArray();
    if (kind.arity > 0 && p.length != kind.arity) {
      throw new IllegalArgumentException(
          badSpec(
              spec, kind.name().toLowerCase(Locale.ROOT) + " takes " + kind.arity + " numbers"));
    }
    switch (kind) {
      case LOGNORMAL:
        return logNormal(p[0], p[1]);
      case UNIFORM:
        return uniform(p[0], p[1]);
      case NORMAL:
        return normal(p[0], p[1]);
      default:
        if (p.length < 2) {
          throw new IllegalArgumentException(badSpec(spec, "bursts takes sd and >= 1 centre"));
        }
        return bursts(p[0], Arrays.copyOfRange(p, 1, p.length));
    }
  }

  /** A sampler of window indices drawing from {@code random}. */
  public Sampler sampler(RandomGenerator random) {
    switch (kind) {
      case LOGNORMAL:
        return nonNegative(new LogNormalDistribution(random, parameters[0], parameters[1]));
      case UNIFORM:
        return nonNegative(new UniformRealDistribution(random, parameters[0], parameters[1]));
      case NORMAL:
        return nonNegative(new NormalDistribution(random, parameters[0], parameters[1]));
      default:
        NormalDistribution[] modes = new NormalDistribution[parameters.length - 1];
        for (int i = 0; i < modes.length; i++) {
          modes[i] = new NormalDistribution(random, parameters[i + 1], parameters[0]);
        }
        return () -> resampleUntilNonNegative(modes[random.nextInt(modes.length)]);
    }
  }

  /** Draws window indices; not thread-safe, like the random generator behind it. */
  @FunctionalInterface
  public interface Sampler {
    double sample();
  }

  private static Sampler nonNegative(RealDistribution distribution) {
    return () -> resampleUntilNonNegative(distribution);
  }

  private static double resampleUntilNonNegative(RealDistribution distribution) {
    for (int i = 0; i < MAX_RESAMPLES; i++) {
      double x = distribution.sample();
      if (x >= 0) {
        return x;
      }
    }
    throw new IllegalStateException(
        "lateness distribution produced no non-negative sample in " + MAX_RESAMPLES + " draws");
  }

  private static void requirePositive(String name, double value) {
    if (!(value > 0)) {
      throw new IllegalArgumentException(name + " must be > 0, but was " + value);
    }
  }

  private static String badSpec(String spec, String why) {
    return String.format(
        "invalid lateness distribution '%s': %s; expected lognormal(mu,sigma), uniform(min,max),"
            + " normal(mean,sd) or bursts(sd,c1,c2,...)",
        spec, why);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LatenessDistribution
        && ((LatenessDistribution) o).kind == kind
        && Arrays.equals(((LatenessDistribution) o).parameters, parameters);
  }

  @Override
  public int hashCode() {
    return kind.hashCode() * 31 + Arrays.hashCode(parameters);
  }

  /** The form {@link #parse} reads, e.g. {@code lognormal(0.0,1.0)}. */
  @Override
  public String toString() {
    StringBuilder out = new StringBuilder(kind.name().toLowerCase(Locale.ROOT)).append('(');
    for (int i = 0; i < parameters.length; i++) {
      out.append(i == 0 ? "" : ",").append(parameters[i]);
    }
    return out.append(')').toString();
  }
}
