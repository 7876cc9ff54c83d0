package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DecisionAnswerTest {
  @Test
  void of_acceptsADistribution() {
    DecisionAnswer a = DecisionAnswer.of(0.25, 0.5, 0.25);
    assertThat(a.size()).isEqualTo(3);
    assertThat(a.mostLikely()).isEqualTo(1);
    assertThat(a.probability(0)).isEqualTo(0.25);
  }

  @Test
  void of_refusesNonFiniteNegativeOrAboveOne() {
    for (double bad : new double[] {Double.NaN, Double.POSITIVE_INFINITY, -0.1, 1.5}) {
      assertThatThrownBy(() -> DecisionAnswer.of(bad, 1 - bad))
          .as("%s", bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void of_refusesASumAwayFromOne_beyondTheTolerance() {
    assertThatThrownBy(() -> DecisionAnswer.of(0.5, 0.4))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> DecisionAnswer.of(0.5, 0.5 + 2e-6))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(DecisionAnswer.of(0.5, 0.5 + 5e-7).size()).isEqualTo(2);
  }

  @Test
  void of_refusesEmpty() {
    assertThatThrownBy(DecisionAnswer::of).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void probabilities_areCopiedInAndOut() {
    double[] p = {0.5, 0.5};
    DecisionAnswer a = DecisionAnswer.of(p);
    p[0] = 1;
    a.probabilities()[1] = 1;
    assertThat(a.probabilities()).containsExactly(0.5, 0.5);
  }

  @Test
  void fits_comparesWithTheQuestionsOptionCount() {
    assertThat(DecisionAnswer.of(0.1, 0.9).fits(new DecisionQuestion.Proposition("p?"))).isTrue();
    assertThat(DecisionAnswer.of(1.0).fits(new DecisionQuestion.Proposition("p?"))).isFalse();
  }

  @Test
  void of_acceptsTheBounds_zeroAndOne_and255Options() {
    assertThat(DecisionAnswer.of(0.0, 1.0).mostLikely()).isEqualTo(1);
    double[] many = new double[255];
    java.util.Arrays.fill(many, 1.0 / 255);
    assertThat(DecisionAnswer.of(many).size()).isEqualTo(255);
    double[] tooMany = new double[256];
    java.util.Arrays.fill(tooMany, 1.0 / 256);
    assertThatThrownBy(() -> DecisionAnswer.of(tooMany))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void mostLikely_prefersTheEarliestOnATie() {
    assertThat(DecisionAnswer.of(0.25, 0.375, 0.375).mostLikely()).isEqualTo(1);
    assertThat(DecisionAnswer.of(0.5, 0.5).mostLikely()).isZero();
  }

  @Test
  void equality_isByProbabilities() {
    assertThat(DecisionAnswer.of(0.5, 0.5))
        .isEqualTo(DecisionAnswer.of(0.5, 0.5))
        .hasSameHashCodeAs(DecisionAnswer.of(0.5, 0.5))
        .isNotEqualTo(DecisionAnswer.of(0.25, 0.75));
    assertThat(DecisionAnswer.of(0.5, 0.5).hashCode()).isNotZero();
    assertThat(DecisionAnswer.of(0.5, 0.5).toString()).contains("0.5");
  }

  @Test
  void decisionResult_refusesAGenerationOutcomeOrEmittedTokens() {
    ServeOutcome decided =
        new ServeOutcome(
            3,
            0,
            0,
            0,
            0,
            0,
            java.util.Optional.empty(),
            java.util.Optional.of(new DecisionShape(1, 2, 0)));
    DecisionResult ok = new DecisionResult(decided, java.util.List.of(DecisionAnswer.of(0.5, 0.5)));
    assertThat(ok.toEngineResult().tokens().size()).isZero();
    assertThat(ok.toEngineResult().outcome()).isEqualTo(decided);
    assertThatThrownBy(() -> new DecisionResult(ServeOutcome.greedy(3, 0), java.util.List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    ServeOutcome emitted =
        new ServeOutcome(
            3,
            2,
            2,
            0,
            0,
            0,
            java.util.Optional.empty(),
            java.util.Optional.of(new DecisionShape(1, 2, 0)));
    assertThatThrownBy(() -> new DecisionResult(emitted, java.util.List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
