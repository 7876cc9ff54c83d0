package org.meshjava.spring.ai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.steward.Steward;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.content.Media;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.tool.function.FunctionToolCallback;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.util.MimeTypeUtils;

/** What the Spring AI chat model refuses rather than serving a chat other than the one asked. */
class MeshSpringAiChatModelTest {
  private final Steward steward =
      Steward.ephemeral()
          .meter(new EstimatorMeter())
          .backend(ReferenceEngine.builder().name("small").build())
          .build();
  private final MeshSpringAiChatModel model = new MeshSpringAiChatModel(steward, 1_000_000);

  @AfterEach
  void close() {
    steward.close();
  }

  /**
   * Regression: a user message's image was dropped and its text alone served, so the answer and its
   * sealed receipt were to a question the caller never asked.
   */
  @Test
  void aMessageWithMedia_isRefused_notServedAsItsTextAlone() {
    Prompt withImage =
        new Prompt(
            UserMessage.builder()
                .text("what is in this picture?")
                .media(new Media(MimeTypeUtils.IMAGE_PNG, new ByteArrayResource(new byte[] {1})))
                .build());

    assertThatThrownBy(() -> model.call(withImage))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessage("a steward serves text; a user message holds 1 media");
    assertThat(steward.head().nextSequence()).isZero();
  }

  /**
   * Regression: tool callbacks in the options were ignored, and the chat answered as if the
   * application had offered no tool.
   */
  @Test
  void toolCallbacksInTheOptions_areRefused_notIgnored() {
    Prompt withTool =
        new Prompt(
            new UserMessage("what is the weather?"),
            ToolCallingChatOptions.builder()
                .toolCallbacks(
                    FunctionToolCallback.builder("weather", (String city) -> "sunny")
                        .inputType(String.class)
                        .description("the weather in a city")
                        .build())
                .build());

    assertThatThrownBy(() -> model.call(withTool))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageStartingWith("a steward serves no tools");
    assertThat(steward.head().nextSequence()).isZero();
  }

  /**
   * Regression: a negative ceiling was taken, and every chat then failed with the binding's words
   * for a request field ("metadata.joule_ceiling_uj must be ...").
   */
  @Test
  void aNegativeCeiling_isRefusedWhenTheModelIsMade() {
    assertThatThrownBy(() -> new MeshSpringAiChatModel(steward, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("jouleCeilingUj must be non-negative: -1");
  }
}
