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
 * key and the keys read; the caller's other metadata still passes unread.
 */
class MetadataNearMissTest {

  private static ObjectNode chat(String key, String value) {
    ObjectNode body = Fixture.chat("Mind my ceiling.");
    body.putObject("metadata").put(key, value).put("customer", "acme");
    return body;
  }

  @Test
  void aKeyWrittenAsAMeshKey_isRefusedNamingItAndTheKeysRead() throws Exception {
    try (Fixture f = new Fixture()) {
      for (String key :
          new String[] {
            "joule_ceiling",
            "Joule_Ceiling_UJ",
            "jouleCeilingUj",
            "joule-ceiling-uj",
            "ceiling_uj",
            "fidelity",
            "Fidelity_Floor",
            "fidelty_floor",
            "prompt_token",
            "promptTokens",
          }) {
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
          .put("tokens", "9");
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
}
