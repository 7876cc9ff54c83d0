package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/**
 * A caller's own metadata key that only shares a word or the unit with a mesh key ({@code
 * fidelity_notes}, {@code max_uj}, {@code system_prompt_tokens}) was refused 400 {@code
 * invalid_metadata} as a mistyped mesh key, so a client whose metadata served against OpenAI was
 * refused here. Only a mesh key written in another case or with other separators, a few letters
 * off, or cut short is taken as meant for mesh.
 */
class MetadataCallerKeysTest {

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
  void aCallersOwnKeys_areServed() throws Exception {
    try (Fixture f = new Fixture()) {
      ObjectNode body = Fixture.chat("Mind my notes.");
      body.putObject("metadata")
          .put("fidelity_notes", "draft")
          .put("max_uj", "9")
          .put("system_prompt_tokens", "12");
      Fixture.Answer a = f.post("/v1/chat/completions", body);
      assertThat(a.status()).as(a.body()).isEqualTo(200);
    }
  }

  @Test
  void caseSeparatorTyposAndCutShortMeshKeys_areMeantForMesh() {
    for (String key :
        new String[] {
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
          "prompt_token",
          "promptTokens",
          "PROMPT-TOKENS",
        }) {
      assertThat(MeshMetadataKeys.meantForMesh(key)).as(key).isTrue();
    }
  }
}
