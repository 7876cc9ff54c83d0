package org.meshjava.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ByteTokenizer;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.Tokenizer;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.steward.Steward;

/** A streaming handler that throws hears {@code onError} with what it threw, wherever it threw. */
class StreamHandlerFailureTest {
  /**
   * The prompt's bytes as tokens; an output as one letter per token and then half of a surrogate
   * pair, which the stream holds back until the whole output is known, so it is the last partial.
   */
  private static final Tokenizer LAST_PIECE_HELD_BACK =
      new Tokenizer() {
        @Override
        public String name() {
          return "last-piece-held-back";
        }

        @Override
        public TokenSequence encode(byte[] promptText) {
          return ByteTokenizer.INSTANCE.encode(promptText);
        }

        @Override
        public String decode(TokenSequence output) {
          return "a".repeat(output.size()) + HIGH_SURROGATE;
        }
      };

  private static final char HIGH_SURROGATE = '\uD83D';

  private final Steward steward =
      Steward.ephemeral()
          .meter(new EstimatorMeter())
          .backend(ReferenceEngine.builder().name("small").tokenizer(LAST_PIECE_HELD_BACK).build())
          .build();

  @AfterEach
  void close() {
    steward.close();
  }

  /**
   * Regression: the text held back until the output was whole reached the handler after the serve,
   * and a handler that threw on it heard {@code onCompleteResponse} as if nothing had gone wrong,
   * where one that threw on any earlier piece heard {@code onError}, as the class documents.
   */
  @Test
  void aHandlerThatThrowsOnTheLastPiece_hearsOnError() throws Exception {
    List<String> pieces = new CopyOnWriteArrayList<>();
    IllegalStateException thrown = new IllegalStateException("the handler refused the last piece");
    StreamedAnswer done =
        new StreamedAnswer(
            (partial, context) -> {
              pieces.add(partial.text());
              if (partial.text().indexOf(HIGH_SURROGATE) >= 0) {
                throw thrown;
              }
            });

    MeshStreamingChatModel.of(steward)
        .chat(
            ChatRequest.builder().messages(UserMessage.from("three")).maxOutputTokens(3).build(),
            done);

    assertThatThrownBy(() -> done.get(30, TimeUnit.SECONDS)).cause().isSameAs(thrown);
    assertThat(String.join("", pieces)).isEqualTo("aaa" + HIGH_SURROGATE);
  }
}
