package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A typed decision as prompt text (§3.6, SPEC.md 50): the schema bytes its {@code prompt_hash}
 * covers, byte for byte as the record's comment defines them, so another implementation deriving
 * the same request id gets the same bytes.
 */
class DecisionPromptTest {
  private static final List<DecisionQuestion> QUESTIONS =
      List.of(
          new DecisionQuestion.Proposition("Is it é?"),
          new DecisionQuestion.Choice("Which?", List.of("red", "ü")),
          new DecisionQuestion.Score("How good?", List.of("low", "high")));

  private static final String SCHEMA =
      "proposition 2 9\nIs it é?\n5\nfalse\n4\ntrue\n"
          + "choice 2 6\nWhich?\n3\nred\n2\nü\n"
          + "score 2 9\nHow good?\n3\nlow\n4\nhigh\n";

  @Test
  void schema_isEachQuestionsHeaderTextAndOptions_inOrder() {
    assertThat(DecisionPrompt.schema(QUESTIONS)).isEqualTo(SCHEMA.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void text_isTheSchemaThenTheState_andTheShapeCountsBoth() {
    DecisionPrompt p = new DecisionPrompt(QUESTIONS, PromptText.of("the state"));

    assertThat(p.text()).isEqualTo(PromptText.of(SCHEMA + "the state"));
    int schemaLength = SCHEMA.getBytes(StandardCharsets.UTF_8).length;
    assertThat(p.shape()).isEqualTo(new DecisionShape(3, 6, schemaLength));
    assertThat(new DecisionPrompt(QUESTIONS, PromptText.of(new byte[0])).text().length())
        .isEqualTo(schemaLength);
  }

  @Test
  void aDecisionWithoutQuestions_isRefused() {
    assertThatThrownBy(() -> new DecisionPrompt(List.of(), PromptText.of("s")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one question");
  }
}
