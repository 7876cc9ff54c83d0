package org.meshjava.engine.onnx;

/**
 * The softmax temperature that turns cosine similarities into one probability per option.
 *
 * <p>Cosines lie in [-1, 1]. A temperature {@code T} gives two options whose cosines differ by
 * {@code d} odds of {@code exp(d / T)}. Two options within {@link #NEAR_TIE} of each other are a
 * near-tie for an embedding model (paraphrases, word order and precision move cosines by that
 * much), so the engine refuses any temperature that would give a near-tie odds above {@link
 * #MAX_NEAR_TIE_ODDS}: that is, any {@code T < NEAR_TIE / ln(MAX_NEAR_TIE_ODDS)} = {@link #MIN}.
 * The upstream notes describe a published checkpoint whose fitted temperature sharpened logits
 * tenfold and reported near-certainty on what may be a coin flip; this floor is how this engine
 * keeps that from happening. Above {@link #MAX} every answer is close to uniform, which claims
 * nothing and is refused as useless.
 *
 * @param value the temperature, in [{@link #MIN}, {@link #MAX}]
 */
public record Temperature(double value) {
  /** The cosine gap treated as a near-tie. */
  public static final double NEAR_TIE = 0.01;

  /** The most a near-tie may favour one option over the other. */
  public static final double MAX_NEAR_TIE_ODDS = 1.5;

  /** The lowest temperature accepted: about 0.0247. */
  public static final double MIN = NEAR_TIE / Math.log(MAX_NEAR_TIE_ODDS);

  /** The highest temperature accepted. */
  public static final double MAX = 10.0;

  /**
   * The default, 0.05: a near-tie gets odds of about 1.22, while a cosine gap of 0.2 (a clearly
   * related option against an unrelated one) gets odds of about 55.
   */
  public static final Temperature DEFAULT = new Temperature(0.05);

  /** Validates the value; use {@link #of} for a typed error. */
  public Temperature {
    if (!(value >= MIN && value <= MAX)) {
      throw new IllegalArgumentException(
          "temperature must be in [" + MIN + ", " + MAX + "], got " + value);
    }
  }

  /**
   * The temperature {@code value}.
   *
   * @throws OnnxEngineException with {@link OnnxEngineException.Reason#INVALID_TEMPERATURE} if it
   *     is not finite or outside [{@link #MIN}, {@link #MAX}]
   */
  public static Temperature of(double value) throws OnnxEngineException {
    if (!(value >= MIN && value <= MAX)) {
      throw new OnnxEngineException(
          OnnxEngineException.Reason.INVALID_TEMPERATURE,
          "temperature "
              + value
              + " is outside ["
              + MIN
              + ", "
              + MAX
              + "]: below "
              + MIN
              + " a cosine near-tie of "
              + NEAR_TIE
              + " would get odds above "
              + MAX_NEAR_TIE_ODDS);
    }
    return new Temperature(value);
  }

  /**
   * A softmax of {@code cosines / value}, computed in double with the maximum subtracted first so
   * it cannot overflow. The result sums to 1 within rounding.
   */
  public double[] probabilities(double[] cosines) {
    double max = Double.NEGATIVE_INFINITY;
    for (double c : cosines) {
      max = Math.max(max, c);
    }
    double[] p = new double[cosines.length];
    double sum = 0;
    for (int i = 0; i < p.length; i++) {
      p[i] = Math.exp((cosines[i] - max) / value);
      sum += p[i];
    }
    for (int i = 0; i < p.length; i++) {
      p[i] /= sum;
    }
    return p;
  }
}
