package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class DecisionQuestionTest {
  private static List<String> names(int n) {
    return IntStream.range(0, n).mapToObj(i -> "o" + i).toList();
  }

  @Test
  void proposition_hasFalseThenTrue() {
    DecisionQuestion q = new DecisionQuestion.Proposition("is it a duplicate?");
    assertThat(q.options()).containsExactly("false", "true");
    assertThat(q.optionCount()).isEqualTo(2);
  }

  @Test
  void choice_acceptsOneTo255Options_andRefusesMore() {
    assertThat(new DecisionQuestion.Choice("which?", names(1)).optionCount()).isEqualTo(1);
    assertThat(new DecisionQuestion.Choice("which?", names(255)).optionCount()).isEqualTo(255);
    assertThatThrownBy(() -> new DecisionQuestion.Choice("which?", names(256)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new DecisionQuestion.Choice("which?", names(0)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void choice_refusesRepeatedOrBlankOptions() {
    assertThatThrownBy(() -> new DecisionQuestion.Choice("which?", List.of("a", "a")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new DecisionQuestion.Choice("which?", List.of("a", " ")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new DecisionQuestion.Choice(" ", List.of("a")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void score_needsAtLeastTwoLevels() {
    assertThatThrownBy(() -> new DecisionQuestion.Score("how bad?", List.of("only")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(new DecisionQuestion.Score("how bad?", List.of("low", "mid", "high")).options())
        .containsExactly("low", "mid", "high");
  }

  @Test
  void choice_copiesItsOptions() {
    List<String> opts = new ArrayList<>(List.of("a", "b"));
    DecisionQuestion.Choice c = new DecisionQuestion.Choice("which?", opts);
    opts.add("c");
    assertThat(c.optionCount()).isEqualTo(2);
  }

  @Test
  void shapeOf_countsQuestionsAndOptions() {
    DecisionShape s =
        DecisionQuestion.shapeOf(
            List.of(
                new DecisionQuestion.Proposition("dup?"),
                new DecisionQuestion.Choice("dept?", List.of("a", "b", "c", "d", "e"))),
            11);
    assertThat(s).isEqualTo(new DecisionShape(2, 7, 11));
  }

  @Test
  void everyForm_refusesBlankText() {
    assertThatThrownBy(() -> new DecisionQuestion.Proposition(" "))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new DecisionQuestion.Score("", List.of("a", "b")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void shapeMisfit_countsQuestionsAndTheirOptions_butNotSchemaTokens() {
    List<DecisionQuestion> asked =
        List.of(
            new DecisionQuestion.Proposition("is it a duplicate?"),
            new DecisionQuestion.Choice("which?", names(3)));
    assertThat(new DecisionShape(2, 5, 0).misfit(asked)).isEmpty();
    assertThat(new DecisionShape(2, 5, 99).misfit(asked)).isEmpty();
    assertThat(new DecisionShape(3, 5, 0).misfit(asked))
        .contains("2 questions over 5 options do not fit the request's 3 questions over 5 options");
    assertThat(new DecisionShape(2, 6, 0).misfit(asked)).isPresent();
  }
}
