package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ByteTokenizer;
import org.meshjava.core.TokenSequence;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;

class ChatAnswerTest {

  /** An ephemeral steward serving the reference engine "small". */
  private static Steward small() {
    return Steward.ephemeral()
        .meter(new EstimatorMeter())
        .backend(ReferenceEngine.builder().name("small").build())
        .build();
  }

  /** "hi", at most 3 tokens. */
  private static ChatAsk hi() {
    return ChatAsk.builder(new Prompt(List.of(new Prompt.Message("user", "hi"))))
        .maxTokens(3)
        .jouleCeilingUj(10_000_000)
        .build();
  }

  @Test
  void answerAtTheTokenCeiling_isCut_andReadsTheServedTokens() throws Exception {
    try (Steward steward = small()) {
      ChatAsk ask = hi();
      ServeResult result = steward.serve(ask.request(), ask.prompt());

      ChatAnswer answer = new ChatAnswer(ask, result);

      assertThat(answer.cut()).isTrue();
      assertThat(answer.tokensOut()).isEqualTo(3).isEqualTo(result.tokens().size());
      assertThat((long) answer.tokensIn()).isEqualTo(result.outcome().tokensIn());
      assertThat(answer.text()).isEqualTo(ByteTokenizer.INSTANCE.decode(result.tokens()));
    }
  }

  /**
   * A result the steward holds no text for (served from a payload the caller tokenized) is refused:
   * reading its text would decode its tokens after the serve was sealed and paid for, where a
   * tokenizer that fails or answers otherwise leaves a reply disagreeing with the seal. Regression:
   * the answer was made, and text() decoded the tokens then.
   */
  @Test
  void aResultWithNoTextDecodedBeforeItsSeal_isRefused_notDecodedAfterIt() throws Exception {
    try (Steward steward = small()) {
      ChatAsk ask = hi();
      ServeResult fromTokens = steward.serve(ask.request(), TokenSequence.of(1, 2, 3));

      assertThat(fromTokens.text()).isEmpty();
      assertThatThrownBy(() -> new ChatAnswer(ask, fromTokens))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("no text decoded before its seal");
    }
  }
}
