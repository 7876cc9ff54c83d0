package org.meshjava.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ByteTokenizer;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.Tokenizer;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.steward.Steward;
import org.meshjava.steward.observe.ServeObserver;
import org.meshjava.steward.observe.ServePhase;
import org.meshjava.steward.observe.ServeStarted;
import org.meshjava.steward.observe.StewardListener;

/**
 * A streamed chat's last piece is cut from the text the steward decoded before the serve was sealed
 * ({@code ServeResult.text()}): nothing decodes the output again once the receipt is sealed, so a
 * tokenizer failing then cannot cost the handler an answer its grant already paid for.
 */
class StreamDecodesBeforeTheSealTest {
  private final AtomicBoolean sealing = new AtomicBoolean();

  /** One letter per token, piece by piece; decodes the whole output only until the seal begins. */
  private final Tokenizer failsOnceSealing =
      new Tokenizer() {
        @Override
        public String name() {
          return "fails-once-sealing";
        }

        @Override
        public TokenSequence encode(byte[] promptText) {
          return ByteTokenizer.INSTANCE.encode(promptText);
        }

        @Override
        public Optional<String> piece(int index, long token) {
          return Optional.of("a");
        }

        @Override
        public String decode(TokenSequence output) {
          if (sealing.get()) {
            throw new IllegalStateException("decoded after the seal");
          }
          return "a".repeat(output.size());
        }
      };

  private final Steward steward =
      Steward.ephemeral()
          .meter(new EstimatorMeter())
          .backend(ReferenceEngine.builder().name("small").tokenizer(failsOnceSealing).build())
          .listener(
              new StewardListener() {
                @Override
                public ServeObserver serveStarted(ServeStarted serve) {
                  return new ServeObserver() {
                    @Override
                    public void phase(ServePhase phase) {
                      if (phase == ServePhase.SEAL) {
                        sealing.set(true);
                      }
                    }
                  };
                }
              })
          .build();

  @AfterEach
  void close() {
    steward.close();
  }

  /**
   * Regression: the stream decoded the whole output again after the seal for its last piece; the
   * tokenizer's failure there escaped the serving thread, and the handler heard neither the answer
   * nor an error.
   */
  @Test
  void theLastPiece_isCutFromTheTextDecodedBeforeTheSeal() throws Exception {
    List<String> pieces = new CopyOnWriteArrayList<>();
    StreamedAnswer done = new StreamedAnswer((partial, context) -> pieces.add(partial.text()));

    MeshStreamingChatModel.of(steward)
        .chat(
            ChatRequest.builder().messages(UserMessage.from("three")).maxOutputTokens(3).build(),
            done);

    ChatResponse response = done.get(10, TimeUnit.SECONDS);
    assertThat(response.aiMessage().text()).isEqualTo("aaa");
    assertThat(String.join("", pieces)).isEqualTo("aaa");
    assertThat(sealing).isTrue();
  }
}
