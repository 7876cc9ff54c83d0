package org.meshjava.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.NonRetriableException;
import dev.langchain4j.exception.RetriableException;
import dev.langchain4j.model.chat.request.ChatRequest;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Fidelity;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.Steward;

/**
 * Regression: a granted chat whose engine failed after its grant was decided was a {@link
 * MeshServeFailedException}, an {@code InternalServerException} that LangChain4j retries; each
 * retry signed a fresh presentation and spent the grant again. The HTTP binding answers the same
 * failure {@code x-should-retry: false} (SPEC.md 70, "Automatic retries"), and so does this one
 * now: a {@code NonRetriableException}. An ungranted chat's failure is still left to LangChain4j's
 * retries. The failure here is the steward's refusal of an engine that reports more fidelity than
 * it is rated for, which it finds once the engine has run.
 */
class GrantedServeFailureRetryTest {
  private static final ChatRequest HI =
      ChatRequest.builder().messages(UserMessage.from("hi")).build();

  private static Steward overclaiming() {
    return Steward.ephemeral()
        .backend(
            ReferenceEngine.builder()
                .name("small")
                .fidelity(Fidelity.F2)
                .delivers(Fidelity.F3)
                .build())
        .build();
  }

  @Test
  void aGrantedChatWhoseEngineFailed_isCalledOnce_byLangChain4jsRetryLoop() throws Exception {
    try (Steward steward = overclaiming()) {
      MeshChatModel model = GrantedChatModel.over(steward);
      RetryLoop.Ended ended = RetryLoop.run(() -> model.chat(HI));

      assertThat(ended.calls()).as("calls to the chat").isEqualTo(1);
      assertThat(ended.thrown())
          .isInstanceOf(MeshGrantedServeFailedException.class)
          .isInstanceOf(NonRetriableException.class)
          .satisfies(
              e ->
                  assertThat(((MeshRefusal) e).reason())
                      .isEqualTo(ServeException.Reason.FIDELITY_OVERCLAIM));
    }
  }

  @Test
  void anUngrantedChatWhoseEngineFailed_isLeftRetriable() throws Exception {
    try (Steward steward = overclaiming()) {
      MeshChatModel model = MeshChatModel.builder(steward).build();

      assertThatThrownBy(() -> model.chat(HI))
          .isInstanceOf(MeshServeFailedException.class)
          .isInstanceOf(RetriableException.class);
    }
  }
}
