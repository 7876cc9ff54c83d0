package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeRequest;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.steward.Steward;

/**
 * A chat asked in-process (what the LangChain4j and Spring AI adapters build) is the request the
 * binding derives from the equivalent HTTP body (§2.3), with each setting and default carried over.
 */
class ChatAskTest {
  private static final Prompt HI = new Prompt(List.of(new Prompt.Message("user", "hi")));

  @Test
  void eachSetting_entersTheRequest_asTheEquivalentBodyWouldGiveIt() throws Exception {
    ChatAsk ask =
        ChatAsk.builder(HI)
            .maxTokens(9)
            .jouleCeilingUj(5_000)
            .fidelityFloor(Fidelity.F3)
            .model("small")
            .build();

    ServeRequest r = ask.request();
    assertThat(r.maxTokens()).isEqualTo(9);
    assertThat(r.jouleCeilingUj()).isEqualTo(5_000);
    assertThat(r.fidelityFloor()).isEqualTo(Fidelity.F3);
    assertThat(r.model()).contains("small");
    assertThat(r)
        .isEqualTo(
            GrantedServeRequest.derive(
                Fixture.JSON.readTree(
                    """
        {"model":"small","messages":[{"role":"user","content":"hi"}],"max_completion_tokens":9,
         "metadata":{"joule_ceiling_uj":"5000","fidelity_floor":"F3"}}""")));
    assertThat(ask.prompt()).isEqualTo(PromptText.of(HI.bytes()));
  }

  @Test
  void withoutSettings_theBodysDefaultsApply_andNoModelIsNamed() throws Exception {
    ServeRequest r = ChatAsk.builder(HI).jouleCeilingUj(1).build().request();

    assertThat(r.maxTokens()).isEqualTo(GrantedServeRequest.DEFAULT_MAX_TOKENS);
    assertThat(r.fidelityFloor()).isEqualTo(Fidelity.F0);
    assertThat(r.model()).isEmpty();
  }

  @Test
  void aFrameworksModelName_isCheckedAgainstTheSteward_autoAndNoneLeaveEveryBackend() {
    try (Steward steward =
        Steward.ephemeral()
            .meter(new EstimatorMeter())
            .backend(ReferenceEngine.builder().name("small").build())
            .build()) {
      assertThat(ChatAsk.builder(HI).jouleCeilingUj(1).model("small", steward).build())
          .extracting(a -> a.request().model())
          .isEqualTo(java.util.Optional.of("small"));
      assertThat(ChatAsk.builder(HI).jouleCeilingUj(1).model(null, steward).build().request())
          .extracting(ServeRequest::model)
          .isEqualTo(java.util.Optional.empty());
      assertThat(
              ChatAsk.builder(HI)
                  .jouleCeilingUj(1)
                  .model(GrantedServeRequest.AUTO, steward)
                  .build()
                  .request()
                  .model())
          .isEmpty();
      assertThatThrownBy(() -> ChatAsk.builder(HI).model("large", steward))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'large'")
          .hasMessageContaining("[small]");
    }
  }

  @Test
  void aSettingTheBindingWouldRefuse_isRefusedNamingItsBodyField() {
    assertThatThrownBy(() -> ChatAsk.builder(HI).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("joule ceiling");
    assertThatThrownBy(() -> ChatAsk.builder(HI).jouleCeilingUj(1).maxTokens(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("max_completion_tokens: ")
        .hasCauseInstanceOf(BindingException.class);
    assertThatThrownBy(() -> ChatAsk.builder(HI).jouleCeilingUj(-1).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("metadata.joule_ceiling_uj: ");
  }
}
