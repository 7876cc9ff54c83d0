package org.meshjava.core;

import java.util.Arrays;

/**
 * A decision engine's answer to one {@link DecisionQuestion}: a probability per allowed option, in
 * the order the question lists its options (§3.6).
 *
 * <p>Probabilities are doubles here because they are a model's output; they never enter the signed
 * receipt, which forbids floats (§6). Each is finite and in [0, 1], and they sum to 1 within {@link
 * #SUM_TOLERANCE}, absolute: enough for a softmax computed in fp16 and re-widened, tight enough to
 * refuse an engine that returns raw logits or forgets to normalise.
 *
 * <p>Immutable and thread-safe; the array is copied in and out.
 */
public final class DecisionAnswer {
  /** How far the probabilities' sum may stray from 1. */
  public static final double SUM_TOLERANCE = 1e-6;

  private final double[] probabilities;

  private DecisionAnswer(double[] probabilities) {
    this.probabilities = probabilities;
  }

  /**
   * The answer with these probabilities, one per option in order.
   *
   * @throws IllegalArgumentException if there are none or more than 255, if one is not finite or
   *     outside [0, 1], or if they do not sum to 1 within {@link #SUM_TOLERANCE}
   */
  public static DecisionAnswer of(double... probabilities) {
    double[] p = probabilities.clone();
    if (p.length < 1 || p.length > DecisionQuestion.MAX_OPTIONS) {
      throw new IllegalArgumentException(
          "an answer has 1-" + DecisionQuestion.MAX_OPTIONS + " probabilities, got " + p.length);
    }
    double sum = 0;
    for (int i = 0; i < p.length; i++) {
      if (!Double.isFinite(p[i]) || p[i] < 0 || p[i] > 1) {
        throw new IllegalArgumentException(
            "probability " + i + " must be finite and in [0, 1], got " + p[i]);
      }
      sum += p[i];
    }
    if (Math.abs(sum - 1) > SUM_TOLERANCE) {
      throw new IllegalArgumentException(
          "probabilities must sum to 1 within " + SUM_TOLERANCE + ", got " + sum);
    }
    return new DecisionAnswer(p);
  }

  /** The number of options answered. */
  public int size() {
    return probabilities.length;
  }

  /** The probability of option {@code index}. */
  public double probability(int index) {
    return probabilities[index];
  }

  /** A copy of the probabilities. */
  public double[] probabilities() {
    return probabilities.clone();
  }

  /** The index of the most probable option; the earliest on a tie. */
  public int mostLikely() {
    int best = 0;
    for (int i = 1; i < probabilities.length; i++) {
      if (probabilities[i] > probabilities[best]) {
        best = i;
      }
    }
    return best;
  }

  /** Whether this answer gives one probability per option of {@code question}. */
  public boolean fits(DecisionQuestion question) {
    return probabilities.length == question.optionCount();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DecisionAnswer other && Arrays.equals(probabilities, other.probabilities);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(probabilities);
  }

  @Override
  public String toString() {
    return "DecisionAnswer" + Arrays.toString(probabilities);
  }
}
