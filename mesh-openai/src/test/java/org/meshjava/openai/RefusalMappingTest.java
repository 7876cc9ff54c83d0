package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.meshjava.core.DenialLabel;
import org.meshjava.steward.GrantsSuspendedException;
import org.meshjava.steward.NotIssuerException;
import org.meshjava.steward.ServeException;

/**
 * Each reason a serve is refused for, answered with the status, type, code and {@code param} of
 * SPEC.md section 70's error table: what an OpenAI SDK turns into its exception class and a program
 * matches on.
 */
class RefusalMappingTest {

  private record Expected(int status, String type, String param) {}

  private static final Map<ServeException.Reason, Expected> TABLE =
      new EnumMap<>(ServeException.Reason.class);

  static {
    TABLE.put(
        ServeException.Reason.NO_ADMISSIBLE_BACKEND,
        new Expected(422, "invalid_request_error", "metadata"));
    TABLE.put(ServeException.Reason.BACKEND_BUSY, new Expected(429, "rate_limit_error", "model"));
    TABLE.put(
        ServeException.Reason.OVER_CONTEXT,
        new Expected(422, "invalid_request_error", "max_tokens"));
    TABLE.put(
        ServeException.Reason.OVER_CEILING, new Expected(422, "invalid_request_error", "metadata"));
    TABLE.put(
        ServeException.Reason.QUESTIONS_MISMATCH, new Expected(400, "invalid_request_error", null));
    TABLE.put(
        ServeException.Reason.PROMPT_MISMATCH, new Expected(400, "invalid_request_error", null));
    TABLE.put(ServeException.Reason.ENGINE_FAILED, new Expected(502, "server_error", null));
    TABLE.put(ServeException.Reason.INCONSISTENT_OUTCOME, new Expected(502, "server_error", null));
    TABLE.put(ServeException.Reason.FIDELITY_OVERCLAIM, new Expected(502, "server_error", null));
    TABLE.put(ServeException.Reason.WEIGHTS_CHANGED, new Expected(502, "server_error", null));
    TABLE.put(ServeException.Reason.NOT_RECORDED, new Expected(503, "server_error", null));
    TABLE.put(ServeException.Reason.NOT_ISSUER, new Expected(401, "authentication_error", null));
    TABLE.put(ServeException.Reason.GRANT_REFUSED, new Expected(403, "permission_error", null));
    TABLE.put(
        ServeException.Reason.GRANTS_SUSPENDED,
        new Expected(503, "service_unavailable_error", null));
    TABLE.put(
        ServeException.Reason.JOURNAL_NOT_DURABLE,
        new Expected(503, "service_unavailable_error", null));
  }

  @Test
  void everyReason_isAnsweredWithTheStatusTypeAndParamOfTheErrorTable() {
    assertThat(TABLE.keySet()).containsExactlyInAnyOrder(ServeException.Reason.values());
    for (ServeException.Reason reason : ServeException.Reason.values()) {
      Expected want = TABLE.get(reason);
      Reply.Json r = Endpoints.refusal(new ServeException(reason, "why"));
      JsonNode e = r.body().get("error");

      assertThat(r.status()).as(reason.name()).isEqualTo(want.status());
      assertThat(e.get("type").asText()).as(reason.name()).isEqualTo(want.type());
      assertThat(e.get("code").asText())
          .isEqualTo(reason.name().toLowerCase(java.util.Locale.ROOT));
      if (want.param() == null) {
        assertThat(e.get("param").isNull()).as(reason.name()).isTrue();
      } else {
        assertThat(e.get("param").asText()).as(reason.name()).isEqualTo(want.param());
      }
      assertThat(e.get("message").asText())
          .as("the code names the reason; the message is the words alone")
          .isEqualTo("why");
    }
  }

  /** A refused grant names the presentation as the parameter at fault, and its label as code. */
  @Test
  void aGateDenial_andSuspendedGrants_nameTheirLabel_andThePresentation() {
    Reply.Json notIssuer =
        Endpoints.refusal(new NotIssuerException(DenialLabel.BAD_SIGNATURE, "changed", null));
    assertThat(notIssuer.status()).isEqualTo(401);
    assertThat(notIssuer.body().at("/error/code").asText()).isEqualTo("bad-signature");
    assertThat(notIssuer.body().at("/error/type").asText()).isEqualTo("authentication_error");
    assertThat(notIssuer.body().at("/error/param").asText()).isEqualTo("jcp_presentation");

    Reply.Json suspended = Endpoints.refusal(new GrantsSuspendedException("cut journal"));
    assertThat(suspended.status()).isEqualTo(503);
    assertThat(suspended.body().at("/error/code").asText()).isEqualTo("grants_suspended");
    assertThat(suspended.body().at("/error/type").asText()).isEqualTo("service_unavailable_error");
    assertThat(suspended.body().at("/error/param").asText()).isEqualTo("jcp_presentation");
  }
}
