package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/**
 * A metadata key written as if it were a mesh key, but not one ({@code joule_ceiling} for {@code
 * joule_ceiling_uj}, a key in another case), was passed over: the server's default ceiling applied
 * and the client believed it had set its own. It is refused 400 {@code invalid_metadata} naming the
 * key and the keys read; the caller's other metadata still passes unread, even a key that only
 * shares a word or the unit with a mesh key ({@code fidelity_notes}, {@code max_uj}, {@code
 * system_prompt_tokens}), which a first version of the rule refused although OpenAI serves it. Only
 * a mesh key in another case or with other separators, a few letters off, or cut short is taken as
 * meant for mesh.
 */
class MetadataNearMissTest {
  /** Mesh keys in another case or with other separators, a few letters off, or cut short. */
  private static final String[] MEANT_FOR_MESH = {
    "joule_ceiling",
    "Joule_Ceiling_UJ",
    "jouleCeilingUj",
    "joule-ceiling-uj",
    "joule_ceiling_mj",
    "ceiling_uj",
    "fidelity",
    "Fidelity_Floor",
    "fidelty_floor",
    "fidelity_flor",
    // Two letters off and two shorter: at the edge of both the length and the edit bound.
    "fidelty_flor",
    "prompt_token",
    "promptTokens",
    "PROMPT-TOKENS",
  };

  private static ObjectNode chat(String key, String value) {
    ObjectNode body = Fixture.chat("Mind my ceiling.");
    body.putObject("metadata").put(key, value).put("customer", "acme");
    return body;
  }

  @Test
  void aKeyWrittenAsAMeshKey_isRefusedNamingItAndTheKeysRead() throws Exception {
    try (Fixture f = new Fixture()) {
      for (String key : MEANT_FOR_MESH) {
        JsonNode e = f.post("/v1/chat/completions", chat(key, "5")).error(400, "invalid_metadata");
        assertThat(e.get("param").asText()).isEqualTo("metadata." + key);
        assertThat(e.get("message").asText())
            .as(key)
            .contains(key)
            .contains("joule_ceiling_uj")
            .contains("fidelity_floor")
            .contains("prompt_tokens");
      }
    }
  }

  @Test
  void theCallersOwnKeys_passUnread_andTheMeshKeysAreRead() throws Exception {
    try (Fixture f = new Fixture()) {
      ObjectNode body = Fixture.chat("Mind my ceiling.");
      body.putObject("metadata")
          .put("joule_ceiling_uj", "50000000")
          .put("customer", "acme")
          .put("user_id", "u-17")
          .put("trace", "x")
          .put("floor_plan", "3")
          .put("tokens", "9")
          .put("fidelity_notes", "draft")
          .put("max_uj", "9")
          .put("system_prompt_tokens", "12");
      Fixture.Answer a = f.post("/v1/chat/completions", body);
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      assertThat(GrantedServeRequest.derive(body).jouleCeilingUj()).isEqualTo(50_000_000L);
    }
  }

  @Test
  void grantPresentsDerivationRefusesTheSame() {
    ObjectNode body = chat("joule_ceiling", "5");
    BindingException e =
        catchThrowableOfType(BindingException.class, () -> GrantedServeRequest.derive(body));
    assertThat(e.reason()).isEqualTo(BindingException.Reason.INVALID_METADATA);
  }

  @Test
  void keysSharingOnlyAWordOrTheUnit_areTheCallersOwn() {
    for (String key :
        new String[] {
          "fidelity_notes",
          "high_fidelity",
          "max_uj",
          "energy_uj",
          "budget_uj",
          "joules_spent",
          "joule_report",
          "system_prompt_tokens",
          "prompt_token_count",
          "output_tokens",
          "input_tokens",
          "ceiling",
          "tokens",
          "floor_plan",
        }) {
      assertThat(MeshMetadataKeys.meantForMesh(key)).as(key).isFalse();
    }
  }

  @Test
  void caseSeparatorTyposAndCutShortMeshKeys_areMeantForMesh() {
    for (String key : MEANT_FOR_MESH) {
      assertThat(MeshMetadataKeys.meantForMesh(key)).as(key).isTrue();
    }
  }
}
