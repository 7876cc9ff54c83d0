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
    assertThatThrownBy(() -> DecisionAnswer.of(0.5, 0.4)).isInstanceOf(IllegalArgumentException.class);
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
}
