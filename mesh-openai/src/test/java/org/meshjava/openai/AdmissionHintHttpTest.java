package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/**
 * Regression: the 422 {@code no_admissible_backend} said which rules refused each backend but not
 * what to change, which the CLI's demo says ({@code AdmissionHint}); a client reading the SDK's
 * error had to work it out from the candidates. The message now ends with the router's hint. The
 * fixture's backends: small (F1, 40 µJ a token) and large (F4, 900 µJ a token).
 */
class AdmissionHintHttpTest {
  @Test
  void aRefusalByTheBounds_saysWhichBoundToMove() {
    try (Fixture f = new Fixture()) {
      ObjectNode body = Fixture.chat("Write a novel.");
      body.putObject("metadata").put("fidelity_floor", "F4").put("joule_ceiling_uj", "10");
      JsonNode e = f.post("/v1/chat/completions", body).error(422, "no_admissible_backend");
      String message = e.get("message").asText();
      assertThat(message)
          .startsWith("no admissible backend of 2 for floor F4 and ceiling 10 uJ")
          .contains(": a floor of F1 or lower and a ceiling of ")
          .contains(" uJ or more would admit small; a ceiling of ")
          .endsWith(" uJ or more would admit large");
      assertThat(e.get("candidates")).hasSize(2);
    }
  }

  @Test
  void aStreamedRequest_isRefusedWithTheSameHint() {
    try (Fixture f = new Fixture()) {
      ObjectNode body = Fixture.chat("Write a poem.");
      body.put("stream", true);
      body.putObject("metadata").put("fidelity_floor", "F2").put("joule_ceiling_uj", "10");
      JsonNode e = f.post("/v1/chat/completions", body).error(422, "no_admissible_backend");
      assertThat(e.get("message").asText())
          .startsWith("no admissible backend of 2 for floor F2 and ceiling 10 uJ")
          .contains(": a floor of F1 or lower and a ceiling of ")
          .endsWith(" uJ or more would admit large");
    }
  }
}
