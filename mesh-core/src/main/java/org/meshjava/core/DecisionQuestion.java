package org.meshjava.core;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One typed question of a decision (§3.6), in one of the three primitive forms the category
 * converged on. A decision engine answers each with one probability per allowed option, in the
 * order {@link #options()} lists them (see {@link DecisionAnswer}).
 *
 * <p>The questions themselves never enter a receipt: the request's {@link DecisionShape} counts
 * them ({@code questions}, {@code options_scored}), and the prompt payload carries their schema.
 * Immutable and thread-safe.
 */
public sealed interface DecisionQuestion
    permits DecisionQuestion.Proposition, DecisionQuestion.Choice, DecisionQuestion.Score {

  /** The most options one question may offer (§3.6: a choice over 1–255 named options). */
  int MAX_OPTIONS = 255;

  /** The question as put to the model. */
  String text();

  /** The allowed answers, in the order an answer's probabilities follow. */
  List<String> options();

  /** The number of allowed answers: what this question adds to {@code options_scored}. */
  default int optionCount() {
    return options().size();
  }

  /**
   * The decision shape these questions make, with {@code schemaTokens} of the prompt being their
   * schema.
   *
   * @throws IllegalArgumentException if the list is empty or the shape is out of range
   */
  static DecisionShape shapeOf(List<? extends DecisionQuestion> questions, long schemaTokens) {
    long options = 0;
    for (DecisionQuestion q : questions) {
      options += q.optionCount();
    }
    return new DecisionShape(questions.size(), options, schemaTokens);
  }

  /**
   * A proposition: true or false. Two options, {@code false} then {@code true}, so the second
   * probability is the probability that the proposition holds.
   *
   * @param text the proposition
   */
  record Proposition(String text) implements DecisionQuestion {
    private static final List<String> OPTIONS = List.of("false", "true");

    /** Validates the text. */
    public Proposition {
      requireText(text);
    }

    @Override
    public List<String> options() {
      return OPTIONS;
    }
  }

  /**
   * A choice over 1–255 named, distinct options. A single option is allowed, as §3.6 allows it: it
   * is scored (and costs a scored option) though its probability is necessarily 1.
   *
   * @param text the question
   * @param options the option names, distinct, non-empty
   */
  record Choice(String text, List<String> options) implements DecisionQuestion {
    /** Validates and copies the options. */
    public Choice {
      requireText(text);
      options = requireOptions("choice", options, 1);
    }
  }

  /**
   * A score over an ordered rubric, lowest level first. At least two levels: a one-level rubric
   * orders nothing, so a score over it would be a question with no answer to give.
   *
   * @param text the question
   * @param rubric the levels, lowest first, distinct, 2–255 of them
   */
  record Score(String text, List<String> rubric) implements DecisionQuestion {
    /** Validates and copies the rubric. */
    public Score {
      requireText(text);
      rubric = requireOptions("rubric", rubric, 2);
    }

    @Override
    public List<String> options() {
      return rubric;
    }
  }

  private static void requireText(String text) {
    Objects.requireNonNull(text, "text");
    if (text.isBlank()) {
      throw new IllegalArgumentException("a question's text must not be blank");
    }
  }

  private static List<String> requireOptions(String what, List<String> options, int least) {
    List<String> copy = List.copyOf(options);
    if (copy.size() < least || copy.size() > MAX_OPTIONS) {
      throw new IllegalArgumentException(
          "a " + what + " has " + least + "-" + MAX_OPTIONS + " options, got " + copy.size());
    }
    Set<String> seen = new HashSet<>();
    for (String o : copy) {
      if (o.isBlank()) {
        throw new IllegalArgumentException("a " + what + " option must not be blank");
      }
      if (!seen.add(o)) {
        throw new IllegalArgumentException("a " + what + " names option '" + o + "' twice");
      }
    }
    return copy;
  }
}
