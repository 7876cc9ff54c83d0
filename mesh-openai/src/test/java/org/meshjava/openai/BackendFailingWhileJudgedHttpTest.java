package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.meshjava.core.CostProfile;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.engine.ReferenceEngine;

/**
 * A backend whose cost estimate throws while a request is routed is one candidate refused (§4).
 * What it threw (its Java class, and a message that may name a path or a host its operator runs) is
 * the operator's, in the server's log; a client reads that the backend failed while being judged,
 * in a refusal's {@code candidates}, in the hint of its message and in a served reply's {@code
 * usage.energy.route}, and nothing of the throw.
 */
class BackendFailingWhileJudgedHttpTest {
  private static final String SECRET = "secret /path";

  /** "broken": the cheapest backend, F1, whose cost profile throws. */
  private static final class EstimateThrows extends ForwardingEngine {
    EstimateThrows() {
      super(
          ReferenceEngine.builder()
              .name("broken")
              .fidelity(Fidelity.F1)
              .costProfile(CostProfile.perToken(1))
              .workPerToken(1)
              .build());
    }

    @Override
    public CostProfile costProfile() {
      throw new IllegalStateException(SECRET);
    }
  }

  private static Fixture fixture() {
    return new Fixture(null, b -> b.backend(new EstimateThrows()), b -> {});
  }

  private static void assertNoThrowIn(String body) {
    assertThat(body).doesNotContain("IllegalStateException", "java.", "secret", "/path");
  }

  /**
   * Regression: the 422's candidates, and the hint in its message, carried the throw as Java
   * printed it ("not permitted: it failed while being judged: java.lang.IllegalStateException:
   * secret /path").
   */
  @Test
  void aRefusal_namesTheFailureButNotTheThrow_whichTheOperatorsLogHas() {
    try (Fixture f = fixture()) {
      ObjectNode body = Fixture.chat("Write a novel.");
      body.putObject("metadata").put("fidelity_floor", "F4").put("joule_ceiling_uj", "10");
      AtomicReference<Fixture.Answer> answer = new AtomicReference<>();
      String log = Fixture.stderrOf(() -> answer.set(f.post("/v1/chat/completions", body)));

      JsonNode e = answer.get().error(422, "no_admissible_backend");
      assertNoThrowIn(answer.get().body());
      JsonNode broken = e.get("candidates").get(2);
      assertThat(broken.get("backend").asText()).isEqualTo("broken");
      assertThat(broken.get("reason").asText())
          .isEqualTo("not permitted: it failed while being judged");
      assertThat(e.get("message").asText())
          .endsWith(
              "broken is not admitted by any floor or ceiling (not permitted: it failed while"
                  + " being judged)");
      assertThat(log)
          .contains("backend broken failed while being judged", "IllegalStateException: " + SECRET);
    }
  }

  /** Regression: every served reply's route carried the throw of the backend passed over. */
  @Test
  void aServedReplysRoute_namesTheFailureButNotTheThrow() {
    try (Fixture f = fixture()) {
      Fixture.Answer a = f.post("/v1/chat/completions", Fixture.chat("Say hello."));

      assertThat(a.status()).as(a.body()).isEqualTo(200);
      // Not the whole body: the reference engine's placeholder text is any characters at all.
      assertNoThrowIn(a.json().get("usage").toString());
      JsonNode route = a.json().get("usage").get("energy").get("route");
      assertThat(route.get(2).get("backend").asText()).isEqualTo("broken");
      assertThat(route.get(2).get("reason").asText())
          .isEqualTo("not permitted: it failed while being judged");
    }
  }
}
