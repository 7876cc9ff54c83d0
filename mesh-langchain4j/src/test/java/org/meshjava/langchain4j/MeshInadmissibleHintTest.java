package org.meshjava.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Fidelity;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.Steward;

/**
 * A chat no backend admits says, as the HTTP binding's 422 does, which floor or ceiling would have
 * admitted which backend: the LangChain4j caller read the router's counts alone.
 */
class MeshInadmissibleHintTest {
  @Test
  void noBackendAtTheFloor_saysWhichFloorWouldAdmitOne() {
    try (Steward steward =
        Steward.ephemeral()
            .backend(ReferenceEngine.builder().name("small").fidelity(Fidelity.F2).build())
            .build()) {
      MeshChatModel model = MeshChatModel.of(steward);
      MeshInadmissibleException e =
          catchThrowableOfType(
              MeshInadmissibleException.class,
              () ->
                  model.chat(
                      ChatRequest.builder()
                          .messages(UserMessage.from("too fine"))
                          .parameters(
                              MeshChatRequestParameters.builder()
                                  .fidelityFloor(Fidelity.F4)
                                  .build())
                          .build()));
      assertThat(e.reason()).isEqualTo(ServeException.Reason.NO_ADMISSIBLE_BACKEND);
      assertThat(e.hint()).contains("a floor of F2 or lower would admit small");
      assertThat(e.getMessage()).endsWith(": a floor of F2 or lower would admit small");
    }
  }
}
